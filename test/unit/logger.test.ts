import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), text: () => lines.join('') };
}

describe('logger', () => {
  it('never writes Slack or AWS secrets, under known keys or inside messages', () => {
    const { logger, text } = capture();
    logger.info({ signingSecret: 'shhh-signing', botToken: 'xoxb-123-456-secret', credentials: { secretAccessKey: 'abc' } }, 'starting');
    logger.info({ headers: { authorization: 'Bearer k8s-aws-v1.aHR0cHM6Ly9zdHM' } }, 'request');
    logger.warn('Slack said invalid_auth for token xoxb-999-888-leaky and xapp-1-A0-2-zzz');
    logger.error({ err: new Error('call failed with AKIAIOSFODNN7EXAMPLE') }, 'aws');
    const out = text();
    for (const secret of ['shhh-signing', 'xoxb-123-456-secret', 'xoxb-999-888-leaky', 'xapp-1-A0-2-zzz', 'k8s-aws-v1.aHR0', 'AKIAIOSFODNN7EXAMPLE', '"abc"']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('[Redacted]');
    expect(out).toContain('invalid_auth');
  });
});
