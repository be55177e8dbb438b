import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `npm run bench`: runs every bench/*.ts script (except the shared stack) one after another and prints their figures. */
const here = dirname(fileURLToPath(import.meta.url));
const scripts = readdirSync(here)
  .filter((name) => name.endsWith('.ts') && !['run-all.ts', 'bench-stack.ts'].includes(name))
  .sort();
let failed = 0;
for (const script of scripts) {
  process.stdout.write(`\n== ${script} ==\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, script)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
