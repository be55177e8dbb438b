#!/usr/bin/env node
/**
 * `node bin/relayout/relayout.mjs` — moves files by bin/relayout/map.json (`moves`: old path → new path, every moved
 * file; `folders`: folders moved whole, files added to them later included; `ifPresent`: files other branches add;
 * `stay`: the files that stay in a folder the map splits) and rewrites every path that names them:
 *   - in code (.ts .mts .cts .js .mjs .cjs .json): every string literal that is a relative path — import/export
 *     specifiers, dynamic import(), vi.mock(), require(), new URL('./x', import.meta.url), join(dirname, '../..') —
 *     resolved from the file's old place and written from its new place (a `.js` suffix on a `.ts` file is kept);
 *   - in every tracked text file (docs, README, Dockerfile, bin/build.mjs, .dependency-cruiser.cjs, tests that spawn
 *     files): every repository path of a moved file (`jobs/rollout-engine.ts`), every folder moved whole
 *     (`src/status/` → `src/cluster-reader/`), Markdown links relative to their file, and the map's `text` rewrites
 *     (globs such as `jobs/*-step.ts`);
 *   - then its last step: the map's `sections` (README's and docs/architecture.md's Layout text) replace those
 *     sections, and the folder-size rule of `npm run check:imports` is switched on (.dependency-cruiser.cjs).
 * All or nothing: every change is computed first, and any path it cannot rewrite (a relative path in a moved file
 * that resolves to nothing, a template literal with `${…}` in a moved file, a folder split between two places that
 * something names, a map entry whose file is missing, a file in a split folder the map does not place) stops it
 * before a file is touched, naming each one.
 * Re-runnable: a move already done (old gone, new present) is skipped. Then it runs tsc, check:imports and the
 * docs-links test (skip with --no-verify) and prints what it changed, file by file.
 *
 *   node bin/relayout/relayout.mjs [--dry-run] [--no-verify] [--allow-dirty] [--map bin/relayout/map.json]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    'dry-run': { type: 'boolean', default: false },
    'no-verify': { type: 'boolean', default: false },
    'allow-dirty': { type: 'boolean', default: false },
    map: { type: 'string', default: 'bin/relayout/map.json' },
  },
});
const ROOT = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
process.chdir(ROOT);
const git = (...args) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const TOOL_DIR = posix.dirname(opts.map);
const map = JSON.parse(readFileSync(opts.map, 'utf8'));
const errors = [];
const fail = (message) => errors.push(message);

if (!opts['allow-dirty'] && !opts['dry-run'] && git('status', '--porcelain', '--untracked-files=no').trim() !== '') {
  console.error('relayout: the work tree has uncommitted changes; commit them first (or pass --allow-dirty)');
  process.exit(1);
}

// ---- the moves --------------------------------------------------------------------------------------------------
const tracked = new Set(git('ls-files', '-z').split('\0').filter(Boolean));
const moves = new Map(); // old → new, the ones still to do
const done = new Map(); // old → new, moved by an earlier run: a path still naming the old place is rewritten too
const targets = new Map();
// `folders`: every file under the folder moves, with its subpath (files added after the map was written too);
// `ifPresent`: moves of files other branches add, made when the file is there and skipped when it is not.
const entries = Object.entries(map.moves);
for (const [fromDir, toDir] of Object.entries(map.folders ?? {})) {
  for (const file of [...tracked].sort()) if (file.startsWith(`${fromDir}/`) && !(file in map.moves)) entries.push([file, toDir + file.slice(fromDir.length)]);
}
const skipped = [];
for (const [from, to] of Object.entries(map.ifPresent ?? {})) {
  if (tracked.has(from) || tracked.has(to)) entries.push([from, to]);
  else skipped.push(from);
}
for (const [from, to] of entries) {
  if (targets.has(to)) fail(`map: ${from} and ${targets.get(to)} both move to ${to}`);
  targets.set(to, from);
  if (tracked.has(from) && !tracked.has(to) && !existsSync(to)) moves.set(from, to);
  else if (!tracked.has(from) && tracked.has(to)) done.set(from, to);
  else if (tracked.has(from) && (tracked.has(to) || existsSync(to))) fail(`map: ${from} → ${to}: ${to} exists already`);
  else fail(`map: ${from} → ${to}: neither file is in Git (was it renamed or deleted since the map was written? fix the map)`);
}
const newPathOf = (path) => moves.get(path) ?? done.get(path) ?? path;

/** A folder is moved whole when every tracked file under it moves to the same new folder, keeping its subpath. */
function wholeFolderMoves() {
  const folders = new Map();
  for (const file of [...tracked, ...done.keys()]) {
    for (let dir = posix.dirname(file); dir !== '.'; dir = posix.dirname(dir)) {
      const to = moves.get(file) ?? done.get(file);
      const rest = file.slice(dir.length + 1);
      const entry = folders.get(dir) ?? { to: undefined, whole: true };
      if (!to || !to.endsWith(`/${rest}`)) entry.whole = false;
      else {
        const newDir = to.slice(0, -rest.length - 1);
        if (entry.to !== undefined && entry.to !== newDir) entry.whole = false;
        entry.to = newDir;
      }
      folders.set(dir, entry);
    }
  }
  const whole = [...folders].filter(([, e]) => e.whole && e.to !== undefined).map(([dir, e]) => [dir, e.to]);
  // Only the outermost: src/a moved whole implies src/a/b moved whole.
  return new Map(whole.filter(([dir]) => !whole.some(([other]) => other !== dir && dir.startsWith(`${other}/`))));
}
const folderMoves = wholeFolderMoves();
const trackedDirs = new Set([...tracked, ...done.keys()].flatMap((f) => { const out = []; for (let d = posix.dirname(f); d !== '.'; d = posix.dirname(d)) out.push(d); return out; }));
function newDirOf(dir) {
  if (dir === '.' || dir === '') return dir;
  for (const [from, to] of folderMoves) if (dir === from || dir.startsWith(`${from}/`)) return to + dir.slice(from.length);
  // A folder split between places stays where it is as long as some file is still under it after the moves.
  const under = [...tracked].filter((f) => f.startsWith(`${dir}/`));
  if (under.some((f) => newPathOf(f).startsWith(`${dir}/`))) return dir;
  return undefined;
}

// ---- resolving a relative path from a file's old place -------------------------------------------------------------
const JS_TO_TS = [['.js', '.ts'], ['.js', '.tsx'], ['.mjs', '.mts'], ['.cjs', '.cts']];
function resolveOld(fromDir, spec) {
  const clean = spec.replace(/[?#].*$/, '');
  const joined = posix.normalize(posix.join(fromDir, clean)).replace(/\/$/, '');
  if (joined.startsWith('..')) return { kind: 'outside' };
  const known = (path) => tracked.has(path) || done.has(path);
  if (known(joined)) return { kind: 'file', path: joined, suffix: '' };
  for (const [js, ts] of JS_TO_TS) {
    if (joined.endsWith(js) && known(joined.slice(0, -js.length) + ts)) return { kind: 'file', path: joined.slice(0, -js.length) + ts, suffix: js, real: ts };
  }
  if (joined === '.' || trackedDirs.has(joined)) return { kind: 'dir', path: joined };
  for (const index of ['/index.ts', '/index.js']) if (tracked.has(joined + index)) return { kind: 'dir', path: joined };
  return { kind: 'none' };
}
function relativeSpec(fromFile, toPath, original) {
  let rel = posix.relative(posix.dirname(fromFile), toPath) || '.';
  if (!rel.startsWith('.')) rel = `./${rel}`;
  if (original.endsWith('/') && !rel.endsWith('/')) rel += '/';
  return rel;
}

// ---- computing every change ---------------------------------------------------------------------------------------
const CODE = /\.(ts|mts|cts|tsx|js|mjs|cjs|json)$/;
const TEXT = /(\.(ts|mts|cts|tsx|js|mjs|cjs|json|md|ya?ml|sh|txt|html|css)|Dockerfile|\.gitignore|\.dockerignore)$/;
const SKIP = (path) => path.startsWith(`${TOOL_DIR}/`) || path === 'package-lock.json' || path.startsWith('test/fixtures/import-rules/');
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const BEFORE = '(?<![\\w./@-])';

const fileRewrites = [...moves, ...done].sort(([a], [b]) => b.length - a.length);
const folderRewrites = [...folderMoves].sort(([a], [b]) => b.length - a.length);
// A moved file's repository path, or a folder moved whole followed by / or the end of the path.
const rootPathPattern = fileRewrites.length + folderRewrites.length
  ? new RegExp(`${BEFORE}(?:${[...fileRewrites.map(([f]) => `${escape(f)}(?![\\w/-])`), ...folderRewrites.map(([d]) => `${escape(d)}(?=/|[^\\w-]|$)`)].join('|')})`, 'g')
  : undefined;
const textRewrites = map.text ?? [];

const changes = []; // { old, new, content, notes[] }
for (const file of [...tracked].sort()) {
  if (!TEXT.test(file) || SKIP(file) || !existsSync(file)) continue;
  const original = readFileSync(file, 'utf8');
  const target = newPathOf(file);
  const notes = [];
  let text = original;
  if (CODE.test(file)) {
    text = text.replace(/(['"`])(\.{1,2}(?:\/[^'"`\n]*)?)\1/g, (whole, quote, spec) => {
      if (quote === '`' && spec.includes('${')) {
        if (target !== file) fail(`${file}: template path ${whole} cannot be rewritten for its move to ${target}; write it as a plain string first`);
        return whole;
      }
      // A bare '.' is a separator far more often than a path (split('.')); a bare '..' in a moved file is unclear.
      if (spec === '.') return whole;
      if (spec === '..') {
        if (target !== file) fail(`${file}: ${whole} may be a path from ${posix.dirname(file)}/; write it as '../' (or a longer path) so it can be rewritten for the move to ${target}`);
        return whole;
      }
      const found = resolveOld(posix.dirname(file), spec);
      if (found.kind === 'none' || found.kind === 'outside') {
        if (target !== file) fail(`${file}: ${whole} resolves to no file from ${posix.dirname(file)}/, so it cannot be rewritten for the move to ${target}`);
        return whole;
      }
      let to;
      if (found.kind === 'file') {
        to = newPathOf(found.path);
        if (found.suffix) to = to.slice(0, -found.real.length) + found.suffix;
      } else {
        to = newDirOf(found.path);
        if (to === undefined) { fail(`${file}: ${whole} names folder ${found.path}/, which the map empties without moving it whole`); return whole; }
      }
      if (to === found.path && target === file) return whole;
      const next = relativeSpec(target, to, spec);
      if (next === spec) return whole;
      notes.push(`${spec} → ${next}`);
      return `${quote}${next}${quote}`;
    });
  }
  if (file.endsWith('.md')) {
    text = text.replace(/\]\(([^)\s#]+)(#[^)]*)?\)/g, (whole, link, anchor = '') => {
      if (/^[a-z]+:/i.test(link)) return whole;
      const found = resolveOld(posix.dirname(file), link);
      if (found.kind !== 'file' && found.kind !== 'dir') return whole;
      const to = found.kind === 'file' ? newPathOf(found.path) : newDirOf(found.path);
      if (to === undefined) { fail(`${file}: link ${link} names folder ${found.path}/, which the map empties without moving it whole`); return whole; }
      if (to === found.path && target === file) return whole;
      const next = posix.relative(posix.dirname(target), to) + (link.endsWith('/') ? '/' : '');
      if (next === link) return whole;
      notes.push(`link ${link} → ${next}`);
      return `](${next}${anchor})`;
    });
  }
  if (rootPathPattern) {
    text = text.replace(rootPathPattern, (path) => {
      const to = moves.get(path) ?? done.get(path) ?? folderMoves.get(path);
      notes.push(`${path} → ${to}`);
      return to;
    });
  }
  for (const [from, to, under] of textRewrites) {
    if (under && !under.some((prefix) => file === prefix || file.startsWith(prefix))) continue;
    if (text.includes(from)) {
      const line = (words) => (words.includes('\n') ? `${words.split('\n')[0]} …` : words);
      notes.push(`${line(from)} → ${line(to)}`);
      text = text.split(from).join(to);
    }
  }
  // What the rewrite cannot reach: a moved file's path written regex-escaped (src/main\\.ts).
  for (const [from] of fileRewrites) {
    const form = from.replace(/\./g, '\\.');
    if (original.includes(form)) fail(`${file}: names ${from} as ${form}; rewrite it by hand, or add a "text" rewrite to the map`);
  }
  if (text !== original || target !== file) changes.push({ old: file, new: target, content: text, changed: text !== original, notes });
}

const sections = map.sections ?? [];
for (const section of sections) {
  if (!existsSync(join(TOOL_DIR, section.source))) fail(`map: section source ${TOOL_DIR}/${section.source} is missing`);
}

// Files left in a folder the map splits, that the map does not name (added after it was written): reported.
// A file left in a folder the map splits, that the map does not name (added after the map was written), would
// stay where the layout says nothing is: it stops the run until the map says where it goes (or that it stays).
const splitFolders = new Set([...moves.keys()].map((f) => posix.dirname(f)));
const leftBehind = [...tracked].filter((f) => splitFolders.has(posix.dirname(f)) && !moves.has(f) && !targets.has(f) && !(map.stay ?? []).includes(f));
for (const file of leftBehind) fail(`${file}: its folder is split by the map, which does not say where this file goes; add it to "moves" (or to "stay" to keep it here)`);

if (errors.length > 0) {
  for (const error of errors) console.error(`relayout: cannot rewrite: ${error}`);
  console.error(`relayout: ${errors.length} paths could not be rewritten; nothing was changed`);
  process.exit(1);
}

// ---- the report and the changes -----------------------------------------------------------------------------------
const rewritten = changes.filter((c) => c.changed);
console.log(`relayout: ${moves.size} files to move (${done.size} moved already), ${folderMoves.size} folders moved whole, ${rewritten.length} files with paths rewritten`);
for (const [from, to] of folderMoves) console.log(`  folder ${from}/ → ${to}/`);
for (const change of changes) {
  const head = change.new !== change.old ? `${change.old} → ${change.new}` : change.old;
  console.log(`  ${head}${change.notes.length ? `: ${change.notes.length} path${change.notes.length > 1 ? 's' : ''}` : ''}`);
  for (const note of [...new Set(change.notes)]) console.log(`      ${note}`);
}
if (skipped.length > 0) console.log(`relayout: ${skipped.length} "ifPresent" files are not in this tree, skipped: ${skipped.join(', ')}`);
if (opts['dry-run']) {
  console.log('relayout: --dry-run: nothing changed');
  process.exit(0);
}
for (const [from, to] of moves) {
  mkdirSync(dirname(to), { recursive: true });
  git('mv', from, to);
}
for (const change of rewritten) writeFileSync(change.new, change.content);

// The last step: the layout's words, and the folder-size rule switched on.
for (const section of sections) {
  const text = readFileSync(section.file, 'utf8');
  const replacement = readFileSync(join(TOOL_DIR, section.source), 'utf8').trimEnd();
  const start = text.indexOf(`${section.heading}\n`);
  if (start < 0) { console.error(`relayout: ${section.file}: no heading "${section.heading}"; write its text by hand from ${TOOL_DIR}/${section.source}`); process.exitCode = 1; continue; }
  // The section's own text: up to the next heading of any level (its subsections stay).
  const after = text.slice(start + section.heading.length + 1);
  const next = after.search(/^#+ /m);
  const end = next < 0 ? text.length : start + section.heading.length + 1 + next;
  writeFileSync(section.file, `${text.slice(0, start)}${section.heading}\n\n${replacement}\n\n${text.slice(end)}`);
  console.log(`  ${section.file}: section "${section.heading}" written from ${TOOL_DIR}/${section.source}`);
}
const rules = readFileSync('.dependency-cruiser.cjs', 'utf8');
if (rules.includes('enforced: false')) {
  writeFileSync('.dependency-cruiser.cjs', rules.replace('enforced: false', 'enforced: true'));
  console.log('  .dependency-cruiser.cjs: the folder-size rule is switched on');
}

if (!opts['no-verify']) {
  const steps = [
    ['npx', ['tsc', '--noEmit', '-p', '.']],
    ['npm', ['run', '--silent', 'check:imports']],
    ['npx', ['vitest', 'run', 'test/unit/docs-links.test.ts', 'test/unit/import-rules.test.ts']],
  ];
  for (const [cmd, args] of steps) {
    console.log(`relayout: verify: ${cmd} ${args.join(' ')}`);
    try {
      execFileSync(cmd, args, { stdio: 'inherit' });
    } catch {
      console.error(`relayout: verify failed: ${cmd} ${args.join(' ')} (the moves are made and staged; fix forward, or undo with git reset --hard)`);
      process.exit(1);
    }
  }
}
console.log('relayout: done; review with git status and commit');
