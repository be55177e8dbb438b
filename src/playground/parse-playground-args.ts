import { parseArgs } from 'node:util';
import type { PlaygroundOptions } from './start-playground.js';

export const PLAYGROUND_USAGE = `Usage: npm run playground [-- --scenario demo] [--speed 60] [--port 8080] [--host 127.0.0.1]

  --scenario  simulator scenario (default demo; e.g. workshop, karpenter-lab, demo-update-fails)
  --speed     simulated seconds per real second (default 60: a 10-minute control-plane update takes 10 s);
              the page's speed control changes it while it runs
  --port      port of the page (default 8080; 0 picks a free one)
  --host      address the page binds to (default 127.0.0.1)
  --socket-mode  the bot takes commands and clicks over Socket Mode (a WebSocket it opens to the local Slack with
              an app-level token) instead of signed HTTP requests
Redis: REDIS_URL when it answers, else a throwaway redis-server.`;

export type ParsedPlaygroundArgs =
  | { kind: 'run'; options: PlaygroundOptions }
  | { kind: 'help' }
  | { kind: 'error'; message: string };

/** `npm run playground` arguments → options, or the sentence saying which one is wrong. */
export function parsePlaygroundArgs(argv: string[]): ParsedPlaygroundArgs {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        scenario: { type: 'string', short: 's', default: 'demo' },
        speed: { type: 'string', default: '60' },
        port: { type: 'string', short: 'p', default: '8080' },
        host: { type: 'string', default: '127.0.0.1' },
        help: { type: 'boolean', short: 'h', default: false },
        'socket-mode': { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return { kind: 'error', message: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  const speed = Number(values.speed);
  if (!(speed > 0) || !Number.isFinite(speed) || speed > 10_000) {
    return { kind: 'error', message: `--speed must be a number above 0 and at most 10000, got "${values.speed}"` };
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return { kind: 'error', message: `--port must be a port number (0–65535), got "${values.port}"` };
  }
  return { kind: 'run', options: { scenario: values.scenario, speed, port, host: values.host, socketMode: values['socket-mode'] } };
}
