import { createWorld } from '../src/sim/aws/create-world.js';
import { loadScenario } from '../src/sim/scenario/load-scenario.js';
import { createManualClock } from '../src/sim/sim-clock.js';
for (const karpenter of [true, false]) {
  const clock = createManualClock();
  const world = await createWorld(loadScenario(process.argv[2] ?? 'workshop'), { clock, karpenter });
  await clock.advance(3_600_000);
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < 600; i++) await clock.advance(10_000);
  const c = process.cpuUsage(c0);
  console.log(karpenter, 'per 10s tick µs cpu', ((c.user + c.system) / 600).toFixed(1), 'wall', ((performance.now() - t0) * 1000 / 600).toFixed(1));
  world.stop();
}
