import '../log/quiet-node-version-warning.js';
import { parsePlaygroundArgs, PLAYGROUND_USAGE } from './parse-playground-args.js';
import { startPlayground } from './start-playground.js';

/**
 * `npm run playground [-- --scenario workshop --speed 60]`: the real bot and worker over the simulator and a local
 * Slack, with a page that looks and behaves like a Slack channel. Prints the page's URL; Ctrl-C stops everything.
 */
async function main(): Promise<number> {
  const parsed = parsePlaygroundArgs(process.argv.slice(2));
  if (parsed.kind === 'help') {
    process.stdout.write(`${PLAYGROUND_USAGE}\n`);
    return 0;
  }
  if (parsed.kind === 'error') {
    process.stderr.write(`playground: ${parsed.message}\n\n${PLAYGROUND_USAGE}\n`);
    return 2;
  }
  const { options } = parsed;
  process.stdout.write(`Starting Redis, the EKS simulator (scenario "${options.scenario}", speed ${options.speed}x), a local Slack and the bot…\n`);
  const playground = await startPlayground({ ...options, logLevel: process.env.LOG_LEVEL ?? 'silent' });
  process.stdout.write(
    `\nPlayground ready: ${playground.url}\n`
      + `  Open it in a browser, pick who you are (top right) and type /eks-upgrade help.\n`
      + (options.socketMode ? '  The bot takes Slack\'s requests over Socket Mode (docs/socket-mode.md).\n' : '')
      + `  Simulator ${playground.sim.url} · Redis ${playground.redisUrl} (keys under ${playground.queuePrefix}:, removed on exit) · Ctrl-C stops everything.\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  process.stdout.write('Stopping the playground…\n');
  await playground.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`playground: ${error.message}\n`);
    process.exit(1);
  },
);
