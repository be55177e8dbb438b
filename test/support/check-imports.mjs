/**
 * `npm run check:imports` (part of `npm test`): runs the import rules of .dependency-cruiser.cjs over the tree and
 * fails with one readable paragraph per violation. `--root DIR` checks another tree (the rules' own test plants
 * violations in test/fixtures/import-rules).
 *
 * Plain JavaScript run by node: dependency-cruiser's swc parser does not load under tsx's hooks.
 */

import { readdirSync } from 'node:fs';
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

const { values } = parseArgs({ options: { root: { type: 'string' } } });
const violations = await findImportViolations(values.root ? resolve(values.root) : REPO);
for (const v of violations) console.error(`import rule broken: ${v.key}\n  ${v.advice}\n`);
if (violations.length > 0) {
  console.error(`${violations.length} import rule violations (the rules: .dependency-cruiser.cjs)`);
  process.exitCode = 1;
} else {
  console.log('import rules hold: no upward imports, no file or folder cycles, the simulator reached only through its entry point');
}
