import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { freePort } from '../../src/demo/ensure-redis.js';
import { requireTool, type Tool } from './required-tool.js';
import { until } from './until.js';

/**
 * A real server binary (Prometheus, Alertmanager) started for a test: on a free loopback port, with its config and
 * storage in a fresh temp dir, considered up once `GET /-/ready` answers 200 (both servers serve it: Prometheus
 * https://prometheus.io/docs/prometheus/latest/management_api/, Alertmanager
 * https://prometheus.io/docs/alerting/latest/management_api/). stop() kills the process it started and removes the dir.
 */
export interface LocalDaemon {
  url: string;
  stop(): Promise<void>;
}

export interface DaemonSpec {
  tool: Tool;
  /** Files to write into the temp dir before start (name → text). */
  files: Record<string, string>;
  args(dir: string, listen: string): string[];
}

export async function startLocalDaemon(spec: DaemonSpec): Promise<LocalDaemon> {
  requireTool(spec.tool);
  const dir = await mkdtemp(join(tmpdir(), `${basename(spec.tool.command)}-`));
  for (const [name, text] of Object.entries(spec.files)) await writeFile(join(dir, name), text);
  const port = await freePort();
  const listen = `127.0.0.1:${port}`;
  const url = `http://${listen}`;
  const child = spawn(spec.tool.command, spec.args(dir, listen), { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  // DAEMON_LOG=1 shows the server's own log while debugging a test.
  if (process.env.DAEMON_LOG) child.stderr?.pipe(process.stderr);
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const stop = async () => {
    await killAndWait(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`${spec.tool.command} exited with code ${child.exitCode} before it was ready; its log ends:\n${log}`);
        return fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
      },
      () => `${spec.tool.command} to answer ${url}/-/ready; its log ends:\n${log}`,
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const hard = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
