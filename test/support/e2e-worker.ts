import { spawn, type ChildProcess } from 'node:child_process';
import { builtEntry } from './built-entry.js';
import { E2E_BOT_TOKEN, type E2eStack } from './e2e-stack.js';

/**
 * Worker processes for an e2e stack started with role 'web': each runs e2e-worker-process.ts on the stack's queue
 * prefix, simulator and fake Slack. `kill()` is SIGKILL — no goodbye, its BullMQ lock and outbox lease simply expire.
 */
export interface WorkerChild {
  proc: ChildProcess;
  pid: number;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful), then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** What the process wrote to stderr (for failure messages). */
  stderr(): string;
}

export async function startWorkerChild(stack: E2eStack, clusters: unknown[], opts: { lockMs?: number; killAt?: string; env?: Record<string, string>; entry?: string[] } = {}): Promise<WorkerChild> {
  // `entry`: node arguments that run the worker instead (e.g. a bundle of e2e-worker-process.ts, as P8 measures it).
  // By default the test kit's bundle of e2e-worker-process.ts (built-entry.ts: half the CPU of a start under tsx).
  const proc = spawn(process.execPath, opts.entry ?? (await builtEntry('test/support/e2e-worker-process.ts')), {
    env: {
      ...process.env,
      SIM_URL: stack.sim.url,
      SLACK_API_URL: stack.fake.apiUrl,
      SLACK_BOT_TOKEN: E2E_BOT_TOKEN,
      REDIS_URL: stack.env.REDIS_URL,
      QUEUE_PREFIX: stack.prefix,
      CLUSTERS_JSON: JSON.stringify(clusters),
      AWS_POLL_SECONDS: String(stack.env.AWS_POLL_SECONDS),
      LOCK_MS: String(opts.lockMs ?? 3_000),
      ...(stack.threadIntervalMs !== undefined ? { THREAD_MIN_INTERVAL_MS: String(stack.threadIntervalMs) } : {}),
      ...(opts.killAt ? { KILL_AT: opts.killAt } : {}),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const child: WorkerChild = {
    proc,
    pid: proc.pid!,
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 5_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    stderr: () => err,
  };
  // Only bounds a worker that would never be ready: at load 15 on two cores a start under tsx overran 30 s.
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`worker process was not ready within 120 s: ${err}`));
    }, 120_000);
    proc.stdout!.on('data', (chunk) => {
      if (String(chunk).includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited (${code ?? signal}) before it was ready: ${err}`));
    });
  });
}
