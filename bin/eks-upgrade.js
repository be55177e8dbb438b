#!/usr/bin/env node
// `npx eks-upgrade`: runs the CLI's build, dist/cli.cjs (plain JavaScript made by `npm run build`, which `npm ci` runs
// through `prepare`), so nothing is compiled at start. Working on the sources: `npm run build` after a change, or
// run them directly with `npx tsx src/cli/main.ts` (a development dependency).
import { createRequire } from 'node:module';

const { loadBuilt } = createRequire(import.meta.url)('./load-built.cjs');
await loadBuilt('cli').runAndExit(process.argv.slice(2));
