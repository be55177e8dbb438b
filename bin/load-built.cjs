// Loads a bundle of dist/ (dist/main.cjs, dist/cli.cjs) with V8's code cache: the first run compiles and saves the
// compiled code (dist/.v8-cache, or the temp directory when dist/ is read-only, as in the image); later runs reuse
// it and start in about half the time. A cache V8 rejects (another Node, another build) is rewritten.
'use strict';
const { mkdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const DIST = join(__dirname, '..', 'dist');

/**
 * V8 refuses a code cache made under other V8 flags (a heap cap such as the worker's --max-old-space-size changes
 * its flag hash), so processes started with different flags keep one cache each. With one name for all, a web and a
 * worker process sharing dist/ rejected each other's cache at every start and wrote it again a few seconds later: a
 * 200–300 ms pause of the new process, in the middle of bench P1's acks.
 */
function flagsKey(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS) {
  const flags = `${execArgv.join(' ')}|${nodeOptions ?? ''}`;
  let hash = 0x811c9dc5; // FNV-1a, 32 bits: a name, not a secret
  for (let i = 0; i < flags.length; i++) hash = Math.imul(hash ^ flags.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

function cacheDirs() {
  return [join(DIST, '.v8-cache'), join(tmpdir(), 'eks-upgrade-bot-v8-cache')];
}

/**
 * The code cache's file name for dist/<name>.cjs as built now, in a process with these Node flags (default: this
 * process's); benches use it to wait until a new process has saved its cache.
 * @param {string} name @param {string[]} [execArgv] @param {string} [nodeOptions]
 */
function codeCacheName(name, execArgv, nodeOptions) {
  const { size, mtimeMs } = statSync(join(DIST, `${name}.cjs`));
  return `${name}-${process.version}-${size}-${Math.round(mtimeMs)}-${flagsKey(execArgv, nodeOptions)}.bin`;
}

/** @param {string} name dist/<name>.cjs @param {{ saveAfterMs?: number }} options save a new cache this long after start, or at exit if sooner */
function loadBuilt(name, options = {}) {
  const file = join(DIST, `${name}.cjs`);
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    process.stderr.write(`eks-upgrade: ${file} is missing: the JavaScript is not built yet. Run \`npm run build\` (npm ci runs it too), then try again.\n`);
    process.exit(1);
  }
  const cacheName = codeCacheName(name);
  let cachedData;
  for (const dir of cacheDirs()) {
    try {
      cachedData = readFileSync(join(dir, cacheName));
      break;
    } catch {
      // not cached there
    }
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    let saved = false;
    const save = () => {
      if (saved) return;
      saved = true;
      const data = script.createCachedData();
      for (const dir of cacheDirs()) {
        try {
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, cacheName), data);
          return;
        } catch {
          // read-only: try the next place
        }
      }
    };
    process.once('exit', save);
    if (options.saveAfterMs !== undefined) setTimeout(save, options.saveAfterMs).unref();
  }
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(dirname(file));
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dirname(file));
  return mod.exports;
}

module.exports = { loadBuilt, codeCacheName, cacheDirs };
