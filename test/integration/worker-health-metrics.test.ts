import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';
import { startBot, type RunningBot } from '../../src/start-bot.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';

/**
 * A ROLE=worker process serves no Slack traffic but still answers the probes and the scrape its Deployment points at
 * (GET /healthz and GET /metrics on PORT), and nothing else.
 */
let bot: RunningBot | undefined;
let fake: FakeSlack | undefined;
const prefix = freshPrefix('worker-metrics');
afterEach(async () => {
  await bot?.stop();
  await fake?.close();
  await deleteKeys(`${prefix}:*`);
});

describe('a worker process', () => {
  it('answers /healthz and /metrics on its own port, with its role on every series', async () => {
    fake = await startFakeSlack({ signingSecret: 'worker-secret-0123456789' });
    bot = await startBot({
      env: {
        SLACK_BOT_TOKEN: 'xoxb-worker', SLACK_SIGNING_SECRET: 'worker-secret-0123456789', SLACK_API_URL: fake.apiUrl, REDIS_URL: redisUrl, PORT: 0,
        CLUSTERS_FILE: 'unused.yaml', LOG_LEVEL: 'silent', ROLE: 'worker', QUEUE_PREFIX: prefix, AWS_POLL_SECONDS: 1,
      SHUTDOWN_TIMEOUT_SECONDS: 25,
      AUDIT_RETENTION_DAYS: 400,
      },
      config: parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'] }] }),
      logger: createLogger({ level: 'silent' }),
      aws: { endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } },
    });
    expect(bot.port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${bot.port}`;
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, role: 'worker' });
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toMatch(/^eks_upgrade_outbox_depth\{role="worker"\} 0$/m);
    expect(text).toMatch(/^process_cpu_seconds_total\{role="worker"\} /m);
    const slack = await fetch(`${base}/slack/events`, { method: 'POST', body: '{}' });
    expect(slack.status).toBe(404);
  });
});
