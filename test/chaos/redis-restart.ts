import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/demo/ensure-redis.js';
import { startE2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary, repliesOf, statusCard } from '../support/e2e-thread.js';
import { clustersFor, repeatedCalls } from './kill-point.js';

/**
 * Redis restarts in the middle of an upgrade, as a production Redis with `appendonly yes` does on a node
 * replacement: the test's own redis-server (AOF on, in a temporary directory) is shut down while the control plane
 * updates and started again on the same port and files. The bot must carry on: the job resumes, the gate already
 * answered stays answered, the timeline keeps every event, no mutating call repeats, no post is lost or doubled.
 */
export interface RedisRestartFigures {
  completed: boolean;
  repeatedCalls: string[];
  duplicatedPosts: string[];
  timelineEvents: number;
  downSeconds: number;
  error?: string;
  seconds: number;
}


async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''], { stdio: 'ignore' });
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  probe.on('error', () => undefined);
  await probe.connect().catch(() => undefined);
  for (let i = 0; i < 200 && (await probe.ping().catch(() => '')) !== 'PONG'; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  probe.disconnect();
  return child;
}

export async function runRedisRestart(): Promise<RedisRestartFigures> {
  const started = Date.now();
  const figures: RedisRestartFigures = { completed: false, repeatedCalls: [], duplicatedPosts: [], timelineEvents: 0, downSeconds: 0, seconds: 0 };
  const dir = mkdtempSync(join(tmpdir(), 'chaos-redis-'));
  const port = await freePort();
  let redis = await startRedis(port, dir);
  const url = `redis://127.0.0.1:${port}`;
  const stack = await startE2eStack({ scenario: 'demo', speed: 100, redisUrl: url, clusters: clustersFor('demo') });
  try {
    await stack.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0OPS' });
    const driving = answerGatesUntilSummary(stack.fake, { channel: 'C0OPS', approver: 'U0APP', timeoutMs: 150_000, decide: () => ({ action: 'continue' }) });
    driving.catch(() => undefined);
    // While the control plane updates (the gate is answered by then), Redis goes away and comes back.
    for (let i = 0; i < 3000 && stack.sim.world.cluster('demo')?.status !== 'UPDATING'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const downAt = Date.now();
    const exited = new Promise((resolve) => redis.once('exit', resolve));
    redis.kill('SIGTERM'); // redis-server flushes the AOF and exits, as on a pod's graceful stop
    await exited;
    redis = await startRedis(port, dir);
    figures.downSeconds = Math.round((Date.now() - downAt) / 100) / 10;

    const { summary } = await driving;
    await stack.fake.waitFor((f) => f.files().some((file) => file.text.length > 0), { timeoutMs: 30_000 });
    figures.completed = /✅ Succeeded/.test(summary.text) && stack.sim.world.cluster('demo')?.version === '1.31';
    figures.repeatedCalls = repeatedCalls(await stack.acceptedCalls());
    const stepLines = repliesOf(stack.fake, 'C0OPS').map((reply) => reply.text).filter((text) => /^(Started|Finished): /.test(text));
    figures.duplicatedPosts = stepLines.filter((text, i) => stepLines.indexOf(text) !== i);
    if (stack.fake.messages('C0OPS').filter((m) => m.source === 'chat.postMessage').length !== 1) figures.duplicatedPosts.push('more than one status card');
    figures.timelineEvents = (stack.fake.files()[0]?.text.match(/^\| /gm) ?? []).length;
    if (!statusCard(stack.fake, 'C0OPS')) figures.error = 'the status card is gone';
  } catch (error) {
    figures.error = (error as Error).message.split('\n')[0];
  } finally {
    await stack.close();
    redis.kill('SIGKILL');
    figures.seconds = Math.round((Date.now() - started) / 100) / 10;
  }
  return figures;
}
