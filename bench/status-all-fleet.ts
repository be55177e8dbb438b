import '../src/log/quiet-node-version-warning.js';
import { createEc2PortFactory } from '../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../src/aws/ssm-sdk-adapter.js';
import { createKubePortFactory } from '../src/kube/client-node-adapter.js';
import { systemClock } from '../src/ports/clock.js';
import { startSimulator } from '@eks-upgrade-bot/sim';
import { collectStatuses } from '../src/status/collect-statuses.js';
import { printRow } from './bench-stack.js';

/**
 * `status --all` over a simulated fleet (every 10th cluster's Kubernetes API unreachable, every 13th FAILED): how
 * long the whole answer takes at the default concurrency and at others, through the real SDK and client-node, and
 * how many rows come back unreadable, partly read or not ACTIVE. Figures only.
 */
const SIZES = (process.env.BENCH_FLEET ?? '10,50').split(',').map(Number);
const CONCURRENCY = [8, 16];

async function main(): Promise<void> {
  for (const size of SIZES) {
    const sim = await startSimulator({ scenario: 'fleet', clusters: size, port: 0, speed: 60 });
    try {
      const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };
      const eks = createEksPortFactory({ endpoint: sim.url, credentials });
      const sources = {
        eks,
        ec2: createEc2PortFactory({ endpoint: sim.url, credentials }),
        ssm: createSsmPortFactory({ endpoint: sim.url, credentials }),
        kube: createKubePortFactory({ eks, credentials, tokenSourceFor: () => ({ token: async () => 'bench' }) }),
        clock: systemClock,
      };
      const targets = [...sim.world.clusters.keys()].map((name) => ({ name, region: sim.world.cluster(name)!.region }));
      for (const concurrency of CONCURRENCY) {
        const started = performance.now();
        const rows = await collectStatuses(sources, targets, { concurrency, timeoutMs: 20_000 });
        const seconds = (performance.now() - started) / 1000;
        printRow(`fleet ${size}, concurrency ${concurrency}`, {
          total_s: seconds,
          clusters_per_s: rows.length / seconds,
          rows: rows.length,
          unreadable: rows.filter((row) => row.error).length,
          partly_read: rows.filter((row) => !row.error && row.problems.length > 0).length,
          not_active: rows.filter((row) => row.status && row.status !== 'ACTIVE').length,
          rss_mib: process.memoryUsage().rss / 1024 / 1024,
        });
      }
    } finally {
      await sim.close();
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
