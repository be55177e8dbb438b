import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSlackRequest } from '@eks-upgrade-bot/sim';
import { E2E_BOT_TOKEN, E2E_SECRET, startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary } from '../support/e2e-thread.js';

/**
 * Secrets never reach the logs, checked by scanning every line the bot wrote at debug level over a whole upgrade
 * with Slack errors, a forged request and a refused click — not by trusting the redaction list. The secrets are the
 * Slack bot token, the signing secret, the AWS secret access key, and the presigned EKS token the bot sends to each
 * cluster's Kubernetes API (`k8s-aws-v1.…`, a bearer credential for 15 minutes).
 */
const CHANNEL = 'C0DEMO';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY0';
const lines: string[] = [];
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'demo',
    speed: 600,
    logLines: lines,
    credentials: { accessKeyId: 'AKIASECRETSCANTEST01', secretAccessKey: AWS_SECRET },
    clusters: [{ name: 'demo', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true }],
  });
  // Slack misbehaves for a while: the outbox and the ephemeral answers meet 500s, 429s and a platform error.
  stack.fake.failNext('chat.postMessage', { status: 500 }, 2);
  stack.fake.failNext('chat.update', { status: 429, retryAfter: 1 }, 1);
  stack.fake.failNext('chat.postEphemeral', { error: 'invalid_auth' }, 1);
  const body = 'token=x&command=%2Feks-upgrade&text=help&user_id=U0REQ&channel_id=C0DEMO';
  await stack.fake.sendRaw({ body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...signSlackRequest('forged-secret-0123456789', body) } });
  await stack.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
  await answerGatesUntilSummary(stack.fake, { channel: CHANNEL, approver: 'U0APP', timeoutMs: 120_000, decide: () => ({ action: 'continue' }) });
}, 150_000);

afterAll(async () => stack?.close());

describe('secrets in the logs', () => {
  it('the bot logged the run at debug level, errors included', () => {
    expect(lines.length).toBeGreaterThan(50);
    expect(lines.some((line) => /"level":(40|50)/.test(line))).toBe(true);
  });

  it('no line carries the bot token, the signing secret, the AWS secret key or a presigned EKS token', () => {
    const leaks = lines.filter((line) => line.includes(E2E_BOT_TOKEN) || line.includes(E2E_SECRET) || line.includes(AWS_SECRET) || /k8s-aws-v1\.[A-Za-z0-9_-]{20,}/.test(line));
    expect(leaks).toEqual([]);
  });
});
