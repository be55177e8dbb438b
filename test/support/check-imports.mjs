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

/** Every violation in the tree at baseDir: its rule, its path (from → to, or the whole loop of a cycle), the advice. */
async function findImportViolations(baseDir) {
  const roots = ROOTS.filter((root) => readdirSync(baseDir).includes(root));
  const result = await cruise(roots, { ...config.options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } });
  return result.output.summary.violations.map((violation) => {
    const rule = violation.rule.name;
    const path = violation.cycle?.length ? [violation.from, ...violation.cycle.map((step) => step.name)] : [violation.from, violation.to];
    return { rule, path, key: `${rule}: ${path.join(' → ')}`, advice: config.forbidden.find((r) => r.name === rule)?.comment ?? '' };
  });
}

/**
 * Known: listed exactly, or a folder cycle that runs through one of the listed folder edges. Folder cycles are
 * matched by edge because any new import between two folders can open another loop through the same known edge.
 */
function isKnown(violation, known) {
  if (known.violations.includes(violation.key)) return true;
  if (violation.rule !== 'no-folder-cycles') return false;
  return violation.path.slice(1).some((to, index) => known.folderEdges.includes(`${violation.path[index]} → ${to}`));
}

const { values } = parseArgs({ options: { root: { type: 'string' }, 'write-baseline': { type: 'boolean' } } });
const root = values.root ? resolve(values.root) : REPO;
const baseline = values.root ? undefined : BASELINE;
const violations = await findImportViolations(root);

const known = baseline && existsSync(baseline) ? JSON.parse(readFileSync(baseline, 'utf8')) : { violations: [], folderEdges: [] };

if (values['write-baseline']) {
  known.violations = [...new Set(violations.filter((v) => v.rule !== 'no-folder-cycles').map((v) => v.key))].sort();
  writeFileSync(BASELINE, `${JSON.stringify(known, null, 2)}\n`);
  console.log(`wrote ${known.violations.length} known violations to test/support/known-import-violations-until-8a.json`);
} else {
  const fresh = violations.filter((v) => !isKnown(v, known));
  const ignored = violations.length - fresh.length;
  const fixed = known.violations.filter((key) => !violations.some((v) => v.key === key));
  for (const v of fresh) console.error(`import rule broken: ${v.key}\n  ${v.advice}\n`);
  if (ignored > 0 || fixed.length > 0) {
    console.log(`${ignored} known violations in issue 8's engine folders ignored (test/support/known-import-violations-until-8a.json)`);
    if (fixed.length > 0) console.log(`these no longer occur, take them out of that file:\n  ${fixed.join('\n  ')}`);
  }
  if (fresh.length > 0) {
    console.error(`${fresh.length} import rule violations (the rules: .dependency-cruiser.cjs)`);
    process.exitCode = 1;
  } else {
    console.log('import rules hold: no upward imports, no file or folder cycles, the simulator reached only through its entry point');
  }
}
