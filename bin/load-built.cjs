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

function cacheDirs() {
  return [join(DIST, '.v8-cache'), join(tmpdir(), 'eks-upgrade-bot-v8-cache')];
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
  const { size, mtimeMs } = statSync(file);
  const cacheName = `${name}-${process.version}-${size}-${Math.round(mtimeMs)}.bin`;
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

module.exports = { loadBuilt };
