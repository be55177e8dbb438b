/**
 * `npm run check:imports` (part of `npm test`): runs the import rules of .dependency-cruiser.cjs over the tree and
 * fails with one readable paragraph per violation. `--root DIR` checks another tree (the rules' own test plants
 * violations in test/fixtures/import-rules).
 *
 * Beside the import rules, the folder-size rule (`folderSize` in .dependency-cruiser.cjs): no source folder holds
 * more than 20 files directly; each one over is named with its count and what to do.
 *
 * Plain JavaScript run by node: dependency-cruiser's swc parser does not load under tsx's hooks.
 */

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cruise } from 'dependency-cruiser';

const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs');
const REPO = new URL('../../', import.meta.url).pathname;
const ROOTS = ['src', 'commands', 'jobs', 'test', 'bench', 'bin'];

/** Every violation in the tree at baseDir: its rule, its path (from → to, or the whole loop of a cycle), the advice. */
async function findImportViolations(baseDir) {
  const roots = ROOTS.filter((root) => readdirSync(baseDir).includes(root));
  const result = await cruise(roots, { ...config.options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } });
  return result.output.summary.violations.map((violation) => {
    const rule = violation.rule.name;
    const path = violation.cycle?.length ? [violation.from, ...violation.cycle.map((step) => step.name)] : [violation.from, violation.to];
    return { key: `${rule}: ${path.join(' → ')}`, advice: config.forbidden.find((r) => r.name === rule)?.comment ?? '' };
  });
}

/** Every source folder under baseDir holding more than maxFiles files directly (exempt folders left out). */
function findCrowdedFolders(baseDir) {
  const { maxFiles, roots, exempt } = config.folderSize;
  const skip = new RegExp(exempt);
  const crowded = [];
  const visit = (dir) => {
    if (skip.test(dir)) return;
    const entries = readdirSync(join(baseDir, dir), { withFileTypes: true }).filter((entry) => !entry.name.startsWith('.'));
    const files = entries.filter((entry) => entry.isFile()).length;
    if (files > maxFiles) crowded.push({ dir, files });
    for (const entry of entries) if (entry.isDirectory()) visit(`${dir}/${entry.name}`);
  };
  for (const root of roots) if (readdirSync(baseDir).includes(root)) visit(root);
  return crowded;
}

const { values } = parseArgs({ options: { root: { type: 'string' } } });
const baseDir = values.root ? resolve(values.root) : REPO;
const violations = await findImportViolations(baseDir);
for (const v of violations) console.error(`import rule broken: ${v.key}\n  ${v.advice}\n`);
const crowded = findCrowdedFolders(baseDir);
const sizeEnforced = config.folderSize.enforced || values.root !== undefined;
if (sizeEnforced) {
  for (const { dir, files } of crowded) {
    console.error(`folder too full: ${dir}/ holds ${files} files directly (at most ${config.folderSize.maxFiles})\n  split it into folders named for what each part holds, and name them in README's Layout\n`);
  }
}
if (violations.length > 0) console.error(`${violations.length} import rule violations (the rules: .dependency-cruiser.cjs)`);
if (sizeEnforced && crowded.length > 0) console.error(`${crowded.length} ${crowded.length === 1 ? 'folder holds' : 'folders hold'} more than ${config.folderSize.maxFiles} files directly (the rule: folderSize in .dependency-cruiser.cjs)`);
if (violations.length > 0 || (sizeEnforced && crowded.length > 0)) {
  process.exitCode = 1;
} else {
  console.log('import rules hold: no upward imports, no file or folder cycles, the simulator reached only through its entry points, the product only through its twin');
  if (sizeEnforced) console.log(`folder-size rule holds: no source folder holds more than ${config.folderSize.maxFiles} files directly`);
  else if (crowded.length > 0) console.log(`folder-size rule off until bin/relayout/relayout.mjs has run: ${crowded.length} folders hold more than ${config.folderSize.maxFiles} files (${crowded.map((c) => `${c.dir}/ ${c.files}`).join(', ')})`);
}
