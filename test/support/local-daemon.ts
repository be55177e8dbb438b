import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { freePort } from '../../src/demo/ensure-redis.js';
import { requireTool, type Tool } from './required-tool.js';
import { until } from './until.js';

/**
 * A real server binary (Prometheus, Alertmanager) started for a test: on a free loopback port, with its config and
 * storage in a fresh temp dir, considered up once `GET <url>/-/ready` answers 200 (both servers serve it: Prometheus
 * https://prometheus.io/docs/prometheus/latest/management_api/, Alertmanager
 * https://prometheus.io/docs/alerting/latest/management_api/). stop() kills the process it started and removes the dir.
 *
 * The port is free when chosen, but another process (another suite's Alertmanager, say) can take it before the
 * server binds it; that server's `/-/ready` would then answer for ours, which exits with "address already in use".
 * So each server is started under a path of its own (`--web.external-url=http://<listen>/<random>`, from which both
 * take their route prefix), `url` includes it and only ours answers there; a server that exits before it is ready is
 * started again on another port, up to three times.
 */
export interface LocalDaemon {
  url: string;
  stop(): Promise<void>;
}

export interface DaemonSpec {
  tool: Tool;
  /** Files to write into the temp dir before start (name → text). */
  files: Record<string, string>;
  /** `listen` is host:port; `externalUrl` the server's own URL, path included (pass it as --web.external-url). */
  args(dir: string, listen: string, externalUrl: string): string[];
}

const START_ATTEMPTS = 3;

export async function startLocalDaemon(spec: DaemonSpec): Promise<LocalDaemon> {
  requireTool(spec.tool);
  const dir = await mkdtemp(join(tmpdir(), `${basename(spec.tool.command)}-`));
  for (const [name, text] of Object.entries(spec.files)) await writeFile(join(dir, name), text);
  for (let attempt = 1; ; attempt++) {
    const started = await startOnce(spec, dir);
    if (started.ok) return started.daemon;
    if (attempt >= START_ATTEMPTS || !started.lostPort) {
      await rm(dir, { recursive: true, force: true });
      throw started.error;
    }
  }
}

type StartResult = { ok: true; daemon: LocalDaemon } | { ok: false; error: Error; lostPort: boolean };

async function startOnce(spec: DaemonSpec, dir: string): Promise<StartResult> {
  const port = await freePort();
  const listen = `127.0.0.1:${port}`;
  const url = `http://${listen}/t-${randomBytes(4).toString('hex')}`;
  const child = spawn(spec.tool.command, spec.args(dir, listen, url), { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  // DAEMON_LOG=1 shows the server's own log while debugging a test.
  if (process.env.DAEMON_LOG) child.stderr?.pipe(process.stderr);
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
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
    await killAndWait(child);
    return { ok: false, error: error as Error, lostPort: /address already in use/.test(log) };
  }
  return {
    ok: true,
    daemon: {
      url,
      stop: async () => {
        await killAndWait(child);
        await rm(dir, { recursive: true, force: true });
      },
    },
  };
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
