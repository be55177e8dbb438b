// `npm run build` (bin/build.mjs) (run by `npm ci` through `prepare`, and by the Dockerfile): bundles the bot (src/main.ts) and the
// CLI (src/cli/main.ts) into dist/ as plain JavaScript for Node 20, dependencies included, so starting one neither
// compiles TypeScript nor resolves thousands of module files; bin/load-built.cjs runs them with V8's code cache.
// The simulator's CLI (src/sim/services/cli.ts) is bundled too, for the image's docker-compose service. `npm run dev`,
// the demo, the benchmarks and the tests keep running the TypeScript sources through tsx. The bot's bundle carries
// only the simulator's twin runtime (@eks-upgrade-bot/sim/twin, which rehearsals load), not its fake Slack or test kit.
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Smaller to parse at every start; names stay readable, and the source maps lead back to the TypeScript
  // (NODE_OPTIONS=--enable-source-maps).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  logLevel: 'warning',
};
await Promise.all([
  // CommonJS, one file each: V8 can cache the compiled code of a classic script between runs (Node 20 has no
  // compile cache for ES modules), which saves most of the start-up's CPU from the second run on.
  build({
    ...common,
    entryPoints: { main: 'src/main.ts', cli: 'src/cli/main.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    // A CommonJS bundle has no import.meta: the simulator's twin (rehearse) finds its scenarios through
    // import.meta.url as if its code were in dist/sim/, next to dist/scenarios/.
    banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(require('node:path').join(__dirname, 'sim', 'bundled.cjs')).href;" },
    define: { 'import.meta.url': '__importMetaUrl' },
  }),
  build({
    ...common,
    entryPoints: { 'sim/cli': 'src/sim/services/cli.ts' },
    outdir: 'dist',
    format: 'esm',
    // Bundled CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  }),
]);
// The simulator reads its scenario files from ../scenarios/ next to its code (load-scenario.ts).
cpSync('src/sim/scenarios', 'dist/scenarios', { recursive: true });
