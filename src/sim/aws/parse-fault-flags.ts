import type { ScenarioFaults } from '../scenario/scenario-schema.js';

/**
 * The simulator CLI's fault flags: `--latency-ms 100`, `--throttle-rate 0.2` (every AWS service) or
 * `--throttle-rate eks=0.2,ssm=0.05` (per service), `--error-rate` likewise, `--drop-answers Op=1,…`. Pure; a malformed value throws a
 * sentence naming the flag.
 */
const SERVICES = ['eks', 'ssm', 'ec2', 'autoscaling', 'sts', 'monitoring'] as const;
type Service = (typeof SERVICES)[number];

export function parseFaultFlags(flags: { 'latency-ms'?: string; 'throttle-rate'?: string; 'error-rate'?: string; 'drop-answers'?: string }): ScenarioFaults {
  const faults: ScenarioFaults = {};
  // `--drop-answers UpdateClusterVersion=1,TerminateInstanceInAutoScalingGroup=2`: answers lost after the action.
  if (flags['drop-answers'] !== undefined) {
    faults.dropAnswers = {};
    for (const pair of flags['drop-answers'].split(',')) {
      const [operation, count = '1'] = pair.split('=');
      const n = Number(count);
      if (!/^[A-Z][A-Za-z]+$/.test(operation ?? '') || !Number.isInteger(n) || n < 0) throw new Error(`--drop-answers takes Operation=count pairs (e.g. UpdateClusterVersion=1), got "${pair}"`);
      faults.dropAnswers[operation] = n;
    }
  }
  if (flags['latency-ms'] !== undefined) {
    const ms = Number(flags['latency-ms']);
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`--latency-ms must be a number of milliseconds, got "${flags['latency-ms']}"`);
    faults.latencyMs = ms;
  }
  for (const [flag, key] of [['throttle-rate', 'throttleRate'], ['error-rate', 'errorRate']] as const) {
    const value = flags[flag];
    if (value === undefined) continue;
    if (!value.includes('=')) {
      faults[key] = rate(flag, value);
      continue;
    }
    for (const pair of value.split(',')) {
      const [service, share] = pair.split('=');
      if (!SERVICES.includes(service as Service)) throw new Error(`--${flag}: "${service}" is not one of ${SERVICES.join(', ')}`);
      const services = (faults.services ??= {});
      services[service as Service] = { ...services[service as Service], [key]: rate(flag, share ?? '') };
    }
  }
  return faults;
}

function rate(flag: string, value: string): number {
  const share = Number(value);
  if (value === '' || !Number.isFinite(share) || share < 0 || share > 1) throw new Error(`--${flag} takes a share from 0 to 1 (e.g. 0.2), got "${value}"`);
  return share;
}
