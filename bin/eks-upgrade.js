#!/usr/bin/env node
// `npx eks-upgrade`: runs the CLI's build, dist/cli.js (plain JavaScript made by `npm run build`, which `npm ci` runs
// through `prepare`), so nothing is compiled at start. Working on the sources: `npm run build` after a change, or
// run them directly with `npx tsx src/cli/main.ts` (a development dependency).
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('eks-upgrade: the CLI is not built yet (dist/cli.js is missing). Run `npm run build` (npm ci runs it too), then try again.\n');
  process.exit(1);
}
const { runAndExit } = await import(built.href);
await runAndExit(process.argv.slice(2));
