/**
 * `npm run check:imports` (part of `npm test`): runs the import rules of .dependency-cruiser.cjs over the tree and
 * fails with one readable paragraph per violation. `--root DIR` checks another tree (the rules' own test plants
 * violations in test/fixtures/import-rules).
 *
 * Beside the import rules, the construction rule (`construction` in .dependency-cruiser.cjs): outside entry points
 * and the simulator, no file constructs a Redis connection, a BullMQ object, an SDK client or a WebClient, or calls
 * a factory that opens one; each one found is named with its file, line and what to do. And the folder-size rule (`folderSize` in .dependency-cruiser.cjs): no source folder holds
 * more than 20 files directly; each one over is named with its count and what to do.
 *
 * Plain JavaScript run by node: dependency-cruiser's swc parser does not load under tsx's hooks.
 */

import { readdirSync, readFileSync } from 'node:fs';
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

/** Code without comments: line comments and doc-comment lines say `new Queue(` in prose, which builds nothing. */
function codeOf(line) {
  const trimmed = line.trim();
  if (trimmed.startsWith('*') || trimmed.startsWith('/*')) return '';
  return line.replace(/(^|[^:'"`])\/\/.*$/, '$1');
}

/** Every line under `roots` (but the `skip` files) that matches one of `patterns`, as { path, line, what, call }. */
function scanLines(baseDir, roots, skip, patterns) {
  const found = [];
  const visit = (dir) => {
    for (const entry of readdirSync(join(baseDir, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      if (entry.isDirectory()) visit(path);
      else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !/\.d\.ts$/.test(entry.name) && !skip.some((re) => re.test(path))) {
        readFileSync(join(baseDir, path), 'utf8').split('\n').forEach((line, index) => {
          const code = codeOf(line);
          for (const { what, regex, show } of patterns) {
            for (const match of code.matchAll(regex)) found.push({ path, line: index + 1, what, call: show(match[0]) });
          }
        });
      }
    }
  };
  for (const root of roots) if (readdirSync(baseDir).includes(root)) visit(root);
  return found;
}

/** Every construction of a client, or call of a factory that opens one, outside entry points and the factories. */
function findConstructions(baseDir) {
  const { roots, exempt, factories, constructors, factoryCalls } = config.construction;
  const skip = [...exempt, ...Object.keys(factories)].map((pattern) => new RegExp(pattern));
  const show = (text) => `${text.replace(/\s+/g, ' ').replace(/\($/, '')}(…)`;
  return scanLines(baseDir, roots, skip, [
    { what: 'constructs', regex: new RegExp(constructors, 'g'), show },
    { what: 'calls', regex: new RegExp(factoryCalls, 'g'), show },
  ]);
}

/** Every Block Kit object written outside the one folder of Block Kit builders. */
function findBlockKit(baseDir) {
  const { roots, exempt, literal } = config.blockKit;
  return scanLines(baseDir, roots, exempt.map((pattern) => new RegExp(pattern)), [
    { what: 'writes', regex: new RegExp(literal, 'g'), show: (text) => text.replace(/\s+/g, ' ') },
  ]);
}

const { values } = parseArgs({ options: { root: { type: 'string' } } });
const baseDir = values.root ? resolve(values.root) : REPO;
const violations = await findImportViolations(baseDir);
for (const v of violations) console.error(`import rule broken: ${v.key}\n  ${v.advice}\n`);
const constructions = findConstructions(baseDir);
for (const c of constructions) console.error(`built outside an entry point: ${c.path}:${c.line} ${c.what} ${c.call}\n  ${config.construction.advice}\n`);
const blockKit = findBlockKit(baseDir);
for (const b of blockKit) console.error(`Block Kit outside src/report/blocks/: ${b.path}:${b.line} ${b.what} ${b.call}\n  ${config.blockKit.advice}\n`);
const crowded = findCrowdedFolders(baseDir);
const sizeEnforced = config.folderSize.enforced || values.root !== undefined;
if (sizeEnforced) {
  for (const { dir, files } of crowded) {
    console.error(`folder too full: ${dir}/ holds ${files} files directly (at most ${config.folderSize.maxFiles})\n  split it into folders named for what each part holds, and name them in README's Layout\n`);
  }
}
if (violations.length > 0) console.error(`${violations.length} import rule violations (the rules: .dependency-cruiser.cjs)`);
if (constructions.length > 0) console.error(`${constructions.length} ${constructions.length === 1 ? 'client is' : 'clients are'} built outside an entry point (the rule: construction in .dependency-cruiser.cjs)`);
if (blockKit.length > 0) console.error(`${blockKit.length} Block Kit ${blockKit.length === 1 ? 'object is' : 'objects are'} written outside src/report/blocks/ (the rule: blockKit in .dependency-cruiser.cjs)`);
if (sizeEnforced && crowded.length > 0) console.error(`${crowded.length} ${crowded.length === 1 ? 'folder holds' : 'folders hold'} more than ${config.folderSize.maxFiles} files directly (the rule: folderSize in .dependency-cruiser.cjs)`);
if (violations.length > 0 || constructions.length > 0 || blockKit.length > 0 || (sizeEnforced && crowded.length > 0)) {
  process.exitCode = 1;
} else {
  console.log('import rules hold: no upward imports, no file or folder cycles, the simulator reached only through its entry points, the product only through its twin');
  console.log('construction rule holds: every Redis connection, BullMQ object, SDK client and WebClient is built in an entry point or a factory it calls');
  console.log('Block Kit rule holds: every block, element and view is built in src/report/blocks/');
  if (sizeEnforced) console.log(`folder-size rule holds: no source folder holds more than ${config.folderSize.maxFiles} files directly`);
  else if (crowded.length > 0) console.log(`folder-size rule off until bin/relayout/relayout.mjs has run: ${crowded.length} folders hold more than ${config.folderSize.maxFiles} files (${crowded.map((c) => `${c.dir}/ ${c.files}`).join(', ')})`);
}
