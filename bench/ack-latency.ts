import { percentile, printRow, startBenchStack } from './bench-stack.js';

/**
 * Slack gives a slash command 3000 ms to be acknowledged. This sends bursts of signed `/eks-upgrade` commands
 * (status, plan, help and malformed ones) at increasing concurrency and prints the ack latency the fake Slack
 * measured, as Slack would see it. Figures, not assertions: compare runs.
 */
const TOTAL = Number(process.env.BENCH_COMMANDS ?? 300);
const LEVELS = [1, 10, 50];
const TEXTS = ['status demo', 'help', 'plan demo', 'start demo --to 9.99', 'statu demo', 'status nope'];

async function main(): Promise<void> {
  const stack = await startBenchStack({
    scenario: 'demo',
    config: { clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0BENCH'], requesters: ['U0REQ'], approvers: ['U0APP'] }] },
  });
  try {
    process.stdout.write(`ack latency of /eks-upgrade, ${TOTAL} commands per level (Slack's limit: 3000 ms)\n`);
    for (const concurrency of LEVELS) {
      const latencies: number[] = [];
      let failures = 0;
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < TOTAL) {
            const text = TEXTS[next++ % TEXTS.length];
            const result = await stack.fake.sendSlashCommand({ text, userId: 'U0REQ', channelId: 'C0BENCH' });
            if (result.status !== 200) failures++;
            latencies.push(result.ackMs);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      printRow(`concurrency ${concurrency}`, {
        p50_ms: percentile(latencies, 50),
        p95_ms: percentile(latencies, 95),
        p99_ms: percentile(latencies, 99),
        max_ms: latencies[latencies.length - 1],
        commands_per_s: TOTAL / seconds,
        non_200: failures,
      });
    }
    const rss = process.memoryUsage().rss / 1024 / 1024;
    printRow('process (bot + sim + fake Slack)', { rss_mib: rss });
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
