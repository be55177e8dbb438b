import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** The repository root, where `npm run demo` and friends run. */
export const ROOT = join(import.meta.dirname, '../..');

/** A TypeScript entry point run as a user runs it (node --import tsx), its stdout and stderr gathered. */
export interface StartedTsx {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

export function startTsx(args: string[], env: NodeJS.ProcessEnv, children?: ChildProcess[]): StartedTsx {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children?.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => void (output += chunk));
  child.stderr!.on('data', (chunk) => void (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}
