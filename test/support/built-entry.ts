import { mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
import { ROOT } from './spawn-tsx.js';

/**
 * A TypeScript entry point bundled once into plain JavaScript for the tests that start it as a process of its own
 * (the bot's entry point, a worker for a crash test to SIGKILL): `node <bundle>` instead of `node --import tsx <file>`.
 *
 * Why: under tsx every module the process loads — our sources and the thousands of files of the AWS SDK,
 * client-node and Bolt — goes through tsx's loader hooks on their own thread. Starting `src/main.ts` that way took
 * 3.4–3.7 s of CPU; the bundle, 1.1 s (docs/benchmarks.md, "Test suite"). A crash test starts a worker per case and
 * the start-up tests a bot per case, and on two shared cores that CPU is the suite's wall time.
 *
 * The bundle holds only this repository's code (the simulator's package included); every other package stays an
 * import Node resolves from node_modules, as under tsx. `import.meta.url` keeps meaning the source file's URL, so
 * files found next to the sources (the simulator's scenarios, deploy/'s ClusterRole) are found as under tsx.
 * It is rebuilt when any source it was built from changed after it (esbuild's metafile lists them), so a test never
 * runs yesterday's code; test processes that build at the same moment each write their own file and rename it.
 */
const CACHE = join(ROOT, 'node_modules/.cache/eks-upgrade-bot-tests');

/** Builds under way in this process, by bundle: concurrent tests of one file (describe.concurrent) wait for one build. */
const building = new Map<string, Promise<void>>();

/** The node arguments that run `entry` (a path from the repository's root, e.g. 'src/main.ts'), building it if needed. */
export async function builtEntry(entry: string): Promise<string[]> {
  const out = join(CACHE, `${entry.replace(/[/.]/g, '_')}.mjs`);
  while (building.has(out)) await building.get(out);
  if (!isFresh(out)) {
    const build = bundle(entry, out).finally(() => building.delete(out));
    building.set(out, build);
    await build;
  }
  return [out];
}

function isFresh(out: string): boolean {
  try {
    const builtAt = statSync(out).mtimeMs;
    const meta = JSON.parse(readFileSync(`${out}.meta.json`, 'utf8')) as Metafile;
    return Object.keys(meta.inputs).every((input) => statSync(join(ROOT, input)).mtimeMs < builtAt);
  } catch {
    return false; // not built yet, or a source it was built from is gone
  }
}

/** Bare imports stay imports, except the simulator's workspace package, whose sources are TypeScript. */
const packagesExternal: Plugin = {
  name: 'packages-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@eks-upgrade-bot/') ? undefined : { path: args.path, external: true }));
  },
};

/** Each source file's own URL for `import.meta.url`, as under tsx (the bundle lives elsewhere). */
const sourceImportMetaUrl: Plugin = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

async function bundle(entry: string, out: string): Promise<void> {
  // Built in a folder of this build's own, then moved into place: test processes building at the same moment
  // never read each other's half-written file, nor remove each other's folder.
  const staging = join(CACHE, `.staging-${process.pid}-${randomUUID()}`);
  mkdirSync(staging, { recursive: true });
  const name = basename(out);
  // Dated when the build started: a source saved while it ran is newer than the bundle, which is then built again.
  const started = new Date();
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    outfile: join(staging, name),
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // Beside the bundle, for NODE_OPTIONS=--enable-source-maps when a child's stack trace needs reading; parsing it at
    // every start cost 0.25 s of CPU.
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [packagesExternal, sourceImportMetaUrl],
  });
  utimesSync(join(staging, name), started, started);
  writeFileSync(join(staging, `${name}.meta.json`), JSON.stringify(result.metafile));
  renameSync(join(staging, `${name}.map`), `${out}.map`);
  renameSync(join(staging, `${name}.meta.json`), `${out}.meta.json`);
  renameSync(join(staging, name), out);
  rmSync(staging, { recursive: true, force: true });
}
