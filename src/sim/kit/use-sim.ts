import { afterEach } from 'vitest';
import { startSimulator, type SimServer, type StartSimulatorOptions } from '../sim-server.js';

/**
 * Starting a simulator in a test: on an ephemeral 127.0.0.1 port, fast by default (speed 600: a 10-minute
 * control-plane update takes one real second), closed after the test by `useSim()`. Tests that need full control
 * of time pass `clock: createManualClock()` and move it with `sim.clock.advance()` or POST /_sim/advance.
 */
export const SIM_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
export const SIM_REGION = 'us-west-2';

export type StartSimOptions = Omit<StartSimulatorOptions, 'scenario'>;

export function startSim(scenario: string | object = 'demo', options: StartSimOptions = {}): Promise<SimServer> {
  return startSimulator({ speed: 600, ...options, scenario, port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
}

/** Registers an afterEach that closes every simulator the test started; returns a starter. */
export function useSim(): (scenario?: string | object, options?: StartSimOptions) => Promise<SimServer> {
  const started: SimServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((sim) => sim.close()));
  });
  return async (scenario = 'demo', options = {}) => {
    const sim = await startSim(scenario, options);
    started.push(sim);
    return sim;
  };
}

/** SDK client config pointing at the simulator (EKSClient, SSMClient, EC2Client all take it). */
export function simClientConfig(sim: SimServer, region = SIM_REGION) {
  return { endpoint: sim.url, region, credentials: SIM_CREDENTIALS, maxAttempts: 3 };
}

/** Environment for child processes (aws CLI, the bot) that should talk to the simulator. */
export function simEnv(sim: SimServer, region = SIM_REGION): NodeJS.ProcessEnv {
  return {
    ...process.env,
    AWS_ENDPOINT_URL: sim.url,
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_ACCESS_KEY_ID: SIM_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: SIM_CREDENTIALS.secretAccessKey,
    AWS_PAGER: '',
  };
}

/** Calls the simulator's control API (/_sim/…) and returns the parsed JSON. */
export async function simControl<T = any>(sim: SimServer, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sim.url}/_sim/${path.replace(/^\/?(_sim\/)?/, '')}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`simulator control ${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}
