import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ROOT } from './processes.js';

/**
 * A command's cost as the kernel counts it: wall time, user + system CPU and peak RSS of the child process,
 * read from GNU time (`/usr/bin/time -f`), which reports the child's own rusage. CPU time and peak memory are
 * what the scale figures compare: on a shared machine they move far less with load than wall time does.
 */
export interface CommandCost {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
  /** User + system CPU of the child, ms (NaN without /usr/bin/time). */
  cpuMs: number;
  /** Peak resident set of the child, MB (NaN without /usr/bin/time). */
  peakRssMb: number;
}

const GNU_TIME = '/usr/bin/time';
/** The marker line GNU time appends to stderr: user s, system s, max RSS KiB. */
const MARK = '@@cost';

/** Parses the line `@@cost <user s> <sys s> <max RSS KiB>` GNU time wrote at the end of stderr; the rest is the command's own stderr. */
export function parseTimeLine(stderr: string): { stderr: string; cpuMs: number; peakRssMb: number } {
  const at = stderr.lastIndexOf(`${MARK} `);
  if (at < 0) return { stderr, cpuMs: NaN, peakRssMb: NaN };
  const [user, sys, rssKb] = stderr.slice(at + MARK.length + 1).trim().split(/\s+/).map(Number);
  return { stderr: stderr.slice(0, at), cpuMs: (user + sys) * 1000, peakRssMb: rssKb / 1024 };
}

/** `node <args>` from the repository root with only PATH and `env`, to completion, with its cost. */
export function measureCommand(args: string[], env: Record<string, string>): Promise<CommandCost> {
  const timed = existsSync(GNU_TIME);
  const [file, argv] = timed ? [GNU_TIME, ['-f', `${MARK} %U %S %M`, process.execPath, ...args]] : [process.execPath, args];
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(file, argv, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      // GNU time exits with the command's own code.
      resolve({ ms, code: code ?? 1, stdout, ...parseTimeLine(stderr) });
    });
  });
}

export interface SimRequestCounts {
  aws: Record<string, number>;
  kube: Record<string, number>;
}

export const sumCounts = (area: Record<string, number>) => Object.values(area).reduce((a, b) => a + b, 0);

export async function simRequests(simUrl: string): Promise<SimRequestCounts> {
  return (await (await fetch(`${simUrl}/_sim/requests`)).json()) as SimRequestCounts;
}

export async function resetSimRequests(simUrl: string): Promise<void> {
  await fetch(`${simUrl}/_sim/requests`, { method: 'DELETE' });
}
