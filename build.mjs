// `npm run build` (run by `npm ci` through `prepare`, and by the Dockerfile): bundles the bot (src/main.ts), the
// CLI (src/cli/main.ts) and the simulator's CLI (src/sim/cli.ts) into dist/ as plain JavaScript for Node 20,
// dependencies included, so starting one neither compiles TypeScript nor resolves thousands of module files (the
// CLI's `status` answers in about a second instead of four). `npm run dev`, the demo, the benchmarks and the tests
// keep running the TypeScript sources through tsx.
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/main.ts', cli: 'src/cli/main.ts', 'sim/cli': 'src/sim/cli.ts' },
  outdir: 'dist',
  bundle: true,
  // Code only one command needs (ioredis for the CLI's `audit`) loads when it runs, from a chunk of its own.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Smaller to parse at every start; names stay readable, and the source maps lead back to the TypeScript
  // (NODE_OPTIONS=--enable-source-maps).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  // Bundled CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
// The simulator reads its scenario files from ../scenarios/ next to its code (load-scenario.ts).
cpSync('src/sim/scenarios', 'dist/scenarios', { recursive: true });
