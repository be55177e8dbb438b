#!/usr/bin/env node
// `npx eks-upgrade`: runs src/cli/main.ts through tsx, so the CLI works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { runAndExit } = await import('../src/cli/main.ts');
await runAndExit(process.argv.slice(2));
