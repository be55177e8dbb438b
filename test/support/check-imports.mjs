/**
 * `npm run check:imports` (part of `npm test`): runs the import rules of .dependency-cruiser.cjs over the tree and
 * fails with one readable paragraph per violation. Violations listed in known-import-violations-until-8a.json
 * beside this file are reported as known and do not fail: they all sit in the engine folders issue 8's core branch
 * is moving (src/upgrade, jobs, src/planning). Delete that file once that branch is merged; `--write-baseline`
 * rewrites it from the current tree. `--root DIR` checks another tree (the rules' own test plants violations in
 * test/fixtures/import-rules).
 *
 * Plain JavaScript run by node: dependency-cruiser's swc parser does not load under tsx's hooks. Its own
 * --ignore-known does not cover folder-level cycles, hence this small wrapper.
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cruise } from 'dependency-cruiser';

const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs');
const REPO = new URL('../../', import.meta.url).pathname;
const BASELINE = new URL('./known-import-violations-until-8a.json', import.meta.url).pathname;
const ROOTS = ['src', 'commands', 'jobs', 'test', 'bench', 'bin'];

/** Every violation in the tree at baseDir, as "rule: from → to" (or the whole loop for a cycle) and the rule's advice. */
async function findImportViolations(baseDir) {
  const roots = ROOTS.filter((root) => readdirSync(baseDir).includes(root));
  const result = await cruise(roots, { ...config.options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } });
  return result.output.summary.violations.map((violation) => {
    const rule = violation.rule.name;
    const path = violation.cycle?.length ? [violation.from, ...violation.cycle.map((step) => step.name)] : [violation.from, violation.to];
    return { key: `${rule}: ${path.join(' → ')}`, advice: config.forbidden.find((r) => r.name === rule)?.comment ?? '' };
  });
}

const { values } = parseArgs({ options: { root: { type: 'string' }, 'write-baseline': { type: 'boolean' } } });
const root = values.root ? resolve(values.root) : REPO;
const baseline = values.root ? undefined : BASELINE;
const violations = await findImportViolations(root);

if (values['write-baseline']) {
  writeFileSync(BASELINE, `${JSON.stringify([...new Set(violations.map((v) => v.key))].sort(), null, 2)}\n`);
  console.log(`wrote ${violations.length} known violations to test/support/known-import-violations-until-8a.json`);
} else {
  const known = new Set(baseline && existsSync(baseline) ? JSON.parse(readFileSync(baseline, 'utf8')) : []);
  const fresh = violations.filter((v) => !known.has(v.key));
  const fixed = [...known].filter((key) => !violations.some((v) => v.key === key));
  for (const v of fresh) console.error(`import rule broken: ${v.key}\n  ${v.advice}\n`);
  if (known.size > 0) {
    console.log(`${known.size - fixed.length} known violations in issue 8's engine folders ignored (test/support/known-import-violations-until-8a.json)`);
    if (fixed.length > 0) console.log(`${fixed.length} of them no longer occur: take them out of that file`);
  }
  if (fresh.length > 0) {
    console.error(`${fresh.length} import rule violations (the rules: .dependency-cruiser.cjs)`);
    process.exitCode = 1;
  } else {
    console.log('import rules hold: no upward imports, no file or folder cycles, the simulator reached only through its entry point');
  }
}
