import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { simEnv } from '@eks-upgrade-bot/sim/kit';

const run = promisify(execFile);

/**
 * The real `aws` CLI against a simulator, as a person running the lab would call it: JSON out, and on a refusal the
 * CLI's own stderr (botocore's parse of the simulator's error), so tests assert what the user would read. The timeout
 * only bounds a hung CLI: each call is a Python start (about 0.4 s of CPU), which at load 15–20 on two cores took
 * several seconds, and a 20 s bound read as a refusal.
 */
export async function aws(s: SimServer, ...args: string[]): Promise<{ ok: boolean; json?: any; stderr: string }> {
  try {
    const { stdout, stderr } = await run('aws', ['--endpoint-url', s.url, '--region', 'us-west-2', '--output', 'json', ...args], { env: simEnv(s), timeout: 120_000 });
    return { ok: true, json: stdout.trim() ? JSON.parse(stdout) : undefined, stderr };
  } catch (error) {
    return { ok: false, stderr: String((error as { stderr?: string }).stderr ?? error) };
  }
}
