import { Writable } from 'node:stream';
import { createSlashCommandRouter } from '../../commands/routing/slash-command-router.js';
import type { BotDeps } from '../../src/ports/bot-deps.js';
import { parseClustersConfig, type ClustersConfig } from '../../src/config/clusters-config.js';
import type { EnvConfig } from '../../src/config/env-config.js';
import { createLogger } from '../../src/log/logger.js';
import { systemClock } from '../../src/ports/clock.js';
import { createPrometheusMetrics } from '../../src/prometheus/prom-client-metrics.js';
import { createSlackApp, type SlackApp } from '../../src/slack/create-slack-app.js';
import type { CommandHandOff } from '../../src/ports/slack/slash-command.js';
import { createUsergroupResolver } from '../../src/slack/usergroup-resolver.js';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';
import { createFakeUpgradeControl, type FakeUpgradeControl } from './fake-upgrade-control.js';
import { createTestAuditLog } from './test-audit-log.js';
import type { AuditLog } from '../../src/ports/audit-port.js';

/**
 * The real Bolt app (createSlackApp, HTTP mode, port 0) talking to the fake Slack over HTTP, with an in-memory
 * UpgradeControl so tests see exactly what reached the engine. AWS/Kubernetes ports come from the test (stubs or
 * the simulator's real SDK adapters). Log lines are captured for audit assertions.
 */
export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const BOT_TOKEN = 'xoxb-test-0000-secret-token';

export const TEST_CLUSTERS = parseClustersConfig({
  clusters: [
    { name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP', 'U0REQ', 'S0ONCALL'], twoPersonRule: true },
    { name: 'prod', region: 'eu-west-1', channels: ['C0PROD'], requesters: ['U0REQ'], approvers: ['U0APP'] },
  ],
});

export interface SlackHarness {
  fake: FakeSlack;
  slack: SlackApp;
  control: FakeUpgradeControl;
  /** The durable audit trail the bot writes (real Redis, fresh prefix). */
  audit: AuditLog;
  logLines: Array<Record<string, unknown>>;
  eventsUrl: string;
  close(): Promise<void>;
}

export async function startSlackHarness(
  overrides: Partial<Pick<BotDeps, 'eks' | 'kube' | 'ssm' | 'ec2' | 'doctor' | 'waivers'>> & {
    config?: ClustersConfig;
    userGroups?: Record<string, string[]>;
    handOff?: CommandHandOff;
    /**
     * The fake Slack's rate limits (default 'on'). 'off' for a test that posts its own setup messages into one channel
     * by the hundred (the authorization matrix: two per cell), which Slack's one post per second per channel would
     * hold for a minute without the test asking anything of them; Slack's limits are held in
     * test/integration/fake-slack-rate-limits.test.ts and test/e2e/slack-upgrade-flow.test.ts.
     */
    slackRateLimits?: 'on' | 'off';
  } = {},
): Promise<SlackHarness> {
  const fake = await startFakeSlack({ signingSecret: SIGNING_SECRET, userGroups: overrides.userGroups ?? { S0ONCALL: ['U0ONCALL'] }, rateLimits: overrides.slackRateLimits ?? 'on' });
  const logLines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      callback();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  const control = createFakeUpgradeControl();
  const auditLog = createTestAuditLog();
  const env: EnvConfig = {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    REDIS_URL: 'redis://127.0.0.1:6379',
    PORT: 0,
    CLUSTERS_FILE: 'clusters.yaml',
    LOG_LEVEL: 'debug',
    ROLE: 'web',
    QUEUE_PREFIX: 'unused',
    AWS_POLL_SECONDS: 15,
    SHUTDOWN_TIMEOUT_SECONDS: 25,
    AUDIT_RETENTION_DAYS: 400,
  };
  const unavailable = () => {
    throw new Error('this test gave the bot no AWS/Kubernetes access');
  };
  // The resolver needs the app's client, which exists only once the app does: resolve lazily through it.
  let resolver: BotDeps['usergroups'] | undefined;
  const deps: BotDeps = {
    config: overrides.config ?? TEST_CLUSTERS,
    eks: overrides.eks ?? unavailable,
    kube: overrides.kube ?? (async () => unavailable()),
    ssm: overrides.ssm ?? unavailable,
    ec2: overrides.ec2 ?? unavailable,
    control,
    audit: auditLog.audit,
    usergroups: { members: (id) => resolver!.members(id) },
    clock: systemClock,
    logger,
    doctor: overrides.doctor,
    ...(overrides.waivers ? { waivers: overrides.waivers } : {}),
  };
  const slack = await createSlackApp({ env, deps, commands: createSlashCommandRouter(deps), logger, host: '127.0.0.1', metrics: createPrometheusMetrics(), handOff: overrides.handOff });
  resolver = createUsergroupResolver(slack.client, systemClock, 60_000);
  await slack.start();
  const eventsUrl = `http://127.0.0.1:${slack.port}/slack/events`;
  fake.setBotEventsUrl(eventsUrl);
  return {
    fake,
    slack,
    control,
    audit: auditLog.audit,
    logLines,
    eventsUrl,
    async close() {
      await slack.stop();
      await fake.close();
      await auditLog.close();
    },
  };
}

/** The text of the ephemerals one user has seen, oldest first. */
export function ephemeralTexts(fake: FakeSlack, user: string): string[] {
  return fake.ephemerals(user).map((ephemeral) => ephemeral.text);
}
