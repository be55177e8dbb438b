import { createSimClock, createWorld, loadScenario, startSimulator } from '@eks-upgrade-bot/sim/services';

/**
 * What an idle simulator costs at high speed: starts the workshop and karpenter-lab scenarios at --speed 600 (the
 * Karpenter disruption pass then falls due every ~17 ms real time), lets them settle, then measures process CPU
 * time per real second while nothing happens. The same worlds without the Karpenter controller give its share.
 * Figures, not assertions: compare runs. BENCH_IDLE_MS and BENCH_SPEED change the defaults (5000 ms, 600).
 */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5_000);
const SETTLE_MS = 2_000;
const SPEED = Number(process.env.BENCH_SPEED ?? 600);
const SCENARIOS = ['workshop', 'karpenter-lab'];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU milliseconds (user + system) this process used per real second while idling for IDLE_MS. */
async function idleCpu(): Promise<number> {
  await pause(SETTLE_MS);
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await pause(IDLE_MS);
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - wallBefore;
  return (cpu.user + cpu.system) / 1000 / (wallMs / 1000);
}

function printRow(label: string, values: Record<string, number>): void {
  const cells = Object.entries(values).map(([key, value]) => `${key}=${value.toFixed(1)}`);
  process.stdout.write(`${label.padEnd(44)} ${cells.join('  ')}\n`);
}

async function simulatorIdle(scenario: string): Promise<number> {
  const sim = await startSimulator({ scenario, port: 0, speed: SPEED });
  try {
    return await idleCpu();
  } finally {
    await sim.close();
  }
}

async function worldIdle(scenario: string, karpenter: boolean): Promise<number> {
  const world = await createWorld(loadScenario(scenario), { clock: createSimClock(SPEED), karpenter });
  try {
    return await idleCpu();
  } finally {
    world.stop();
  }
}

async function main(): Promise<void> {
  process.stdout.write(`idle CPU at --speed ${SPEED}, ${IDLE_MS} ms measured after ${SETTLE_MS} ms settling (cpu_ms_per_s: 1000 = one core)\n`);
  await worldIdle(SCENARIOS[0], true); // warm-up: module loading and JIT should not count against the first row
  for (const scenario of SCENARIOS) {
    printRow(`startSimulator ${scenario}`, { cpu_ms_per_s: await simulatorIdle(scenario) });
    const withKarpenter = await worldIdle(scenario, true);
    const withoutKarpenter = await worldIdle(scenario, false);
    printRow(`world ${scenario} with karpenter`, { cpu_ms_per_s: withKarpenter });
    printRow(`world ${scenario} without karpenter`, { cpu_ms_per_s: withoutKarpenter });
    printRow(`  karpenter's share`, { cpu_ms_per_s: withKarpenter - withoutKarpenter });
  }
  const both = await Promise.all(SCENARIOS.map((scenario) => startSimulator({ scenario, port: 0, speed: SPEED })));
  try {
    printRow(`startSimulator ${SCENARIOS.join(' + ')}`, { cpu_ms_per_s: await idleCpu() });
  } finally {
    await Promise.all(both.map((sim) => sim.close()));
  }
}

main().catch((error) => {
  process.stderr.write(`sim-karpenter-idle failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
