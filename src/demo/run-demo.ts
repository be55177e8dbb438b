/**
 * `npm run demo`: the simulator (scenario demo), a Redis, the bot in HTTP mode with its worker, and a local fake
 * Slack, in one process tree. A scripted engineer asks for status, starts an upgrade to 1.31, the approver clicks
 * Continue on each gate, and the conversation is printed as it would look in Slack. Exits 0 once the control plane is at 1.31.
 */

import '../log/quiet-node-version-warning.js';
import { randomBytes } from 'node:crypto';
import { createEksPortFactory } from '../aws/eks-sdk-adapter.js';
import { parseClustersConfig } from '../config/clusters-config.js';
import { parseEnv } from '../config/env-config.js';
import { createLogger } from '../log/logger.js';
import { type FakeMessage, type FakeSlack, startFakeSlack, startSimulator } from '@eks-upgrade-bot/sim/services';
import { startBot, type RunningBot } from '../start-bot.js';
import { demoRedis, type DemoRedis } from './demo-redis.js';

const CHANNEL = 'C0DEMO';
const REQUESTER = 'U0REQ';
const APPROVER = 'U0APP';
const TARGET = '1.31';
const SPEED = Number(process.env.DEMO_SPEED ?? 120);
const STEP_TIMEOUT_MS = 60_000;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function parentCard(fake: FakeSlack): FakeMessage | undefined {
  return fake.messages(CHANNEL).find((message) => /EKS upgrade/i.test(message.text) && message.source === 'chat.postMessage');
}

function hasButton(message: FakeMessage, actionId: string): boolean {
  return JSON.stringify(message.blocks ?? []).includes(`"action_id":"${actionId}"`);
}

async function run(): Promise<number> {
  const cleanups: Array<() => Promise<void>> = [];
  // Each step once, last started first: Ctrl-C and the normal end may both get here.
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) await step().catch(() => undefined);
  };
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.once(signal, () => void cleanup().then(() => process.exit(code)));
  const prefix = `eks-upgrade-demo-${randomBytes(4).toString('hex')}`;
  try {
    say('Starting Redis, the EKS simulator (scenario "demo"), a local Slack and the bot…');
    const redis: DemoRedis = await demoRedis();
    cleanups.push(() => redis.stop());
    // After the bot has stopped (cleanups run in reverse): nothing of the demo stays in a Redis it did not start.
    cleanups.push(async () => void (await redis.removeKeys(prefix)));
    const sim = await startSimulator({ scenario: 'demo', port: 0, speed: SPEED });
    cleanups.push(() => sim.close());
    const signingSecret = randomBytes(16).toString('hex');
    const fake = await startFakeSlack({
      signingSecret,
      userNames: { [REQUESTER]: 'requester', [APPROVER]: 'approver' },
      channelNames: { [CHANNEL]: 'platform-ops' },
    });
    cleanups.push(() => fake.close());

    const env = parseEnv({
      SLACK_BOT_TOKEN: 'xoxb-demo-token',
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: fake.apiUrl,
      ...redis.env,
      PORT: '0',
      ROLE: 'all',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      QUEUE_PREFIX: prefix,
      AWS_POLL_SECONDS: '0.5',
    });
    const config = parseClustersConfig({
      clusters: [{ name: 'demo', region: 'us-west-2', channels: [CHANNEL], requesters: [REQUESTER], approvers: [APPROVER] }],
    });
    const credentials = { accessKeyId: 'demo', secretAccessKey: 'demo' };
    const bot: RunningBot = await startBot({
      env,
      config,
      logger: createLogger({ level: env.LOG_LEVEL }),
      aws: { endpoint: sim.url, credentials },
    });
    cleanups.push(() => bot.stop());
    fake.setBotEventsUrl(`http://127.0.0.1:${bot.port}/slack/events`);
    say(`Simulator ${sim.url} · fake Slack ${fake.url} · bot http://127.0.0.1:${bot.port}/slack/events · Redis ${redis.url} (keys under ${prefix}:, removed on exit)\n`);

    await fake.sendSlashCommand({ text: 'status demo', userId: REQUESTER, channelId: CHANNEL });
    await fake.waitFor((f) => f.ephemerals(REQUESTER).some((e) => /1\.30/.test(e.text)) || f.messages(CHANNEL).length > 0, { timeoutMs: STEP_TIMEOUT_MS });

    await fake.sendSlashCommand({ text: `start demo --to ${TARGET}`, userId: REQUESTER, channelId: CHANNEL });
    // The approver answers every gate the plan announced (the control plane, then the node group), each as its card
    // comes, until the upgrade ends.
    const clicked = new Set<string>();
    for (;;) {
      const next = await fake.waitFor(
        (f) => {
          const card = parentCard(f);
          if (/succeeded|failed|aborted/i.test(card?.text ?? '')) return { ended: true as const };
          const gate = card?.replies.find((reply) => hasButton(reply, 'gate:continue') && !clicked.has(reply.ts));
          return gate ? { gate } : undefined;
        },
        { timeoutMs: STEP_TIMEOUT_MS * 2 },
      );
      if ('ended' in next) break;
      clicked.add(next.gate.ts);
      await fake.clickButton({ userId: APPROVER, channelId: CHANNEL, messageTs: next.gate.ts, actionId: 'gate:continue' });
    }
    // The upgrade ends well before its thread does: the outbox paces replies at about one a second per channel,
    // and the timeline file comes last.
    await fake.waitFor((f) => f.files().some((file) => file.threadTs === parentCard(f)?.ts && file.text.length > 0), {
      timeoutMs: STEP_TIMEOUT_MS,
    });

    say(fake.renderConversation());
    const cluster = await createEksPortFactory({ endpoint: sim.url, credentials })({ region: 'us-west-2' }).describeCluster('demo');
    const updates = sim.world.calls.filter((call) => call.operation === 'UpdateClusterVersion').length;
    say(`\nSimulator: cluster demo is at ${cluster.version} (${cluster.status}); UpdateClusterVersion calls: ${updates}`);
    if (cluster.version !== TARGET) {
      say(`Demo failed: the control plane is at ${cluster.version}, expected ${TARGET}.`);
      return 1;
    }
    say('Demo finished: the control plane of demo is at 1.31.');
    return 0;
  } catch (error) {
    process.stderr.write(`Demo failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await cleanup();
  }
}

run().then((code) => process.exit(code));
