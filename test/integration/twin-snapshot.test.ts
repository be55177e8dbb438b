import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { countMutatingCalls, loadScenario, type SimServer } from '@eks-upgrade-bot/sim';
import { Redis } from 'ioredis';
import { runCli } from '../../src/cli/run-cli.js';
import { createClusterLock } from '../../src/store/cluster-lock.js';
import { engineKeys } from '../../src/store/engine-keys.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { settled, simSources } from './read-path-harness.js';

/**
 * `eks-upgrade snapshot` of a simulated cluster (read as if it were real AWS), loaded back into a second simulator,
 * gives the same `plan` (round trip), writes no secret or env value, and calls nothing mutating on the cluster it read.
 */
const started: SimServer[] = [];
afterAll(async () => Promise.all(started.map((s) => s.close())));

async function cli(sim: SimServer, args: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { env: { AWS_REGION: 'us-west-2', REDIS_URL: redisUrl, ...env }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), sources: () => simSources(sim), fileExists: () => false });
  return { code, stdout, stderr };
}

async function running(scenario: string | object): Promise<SimServer> {
  const sim = await startSim(scenario, { speed: 600 });
  started.push(sim);
  await settled(sim, [...sim.world.clusters.keys()][0]);
  return sim;
}

/**
 * The plan without what differs between two reads of the same cluster: times, generated pod/node/insight names, and
 * which node a single pod landed on (the simulated scheduler places pods by the order nodes became Ready, which
 * varies between two runs of the very same scenario: the findings about one workload stay, the group named in
 * "which X drains" and the all-in-one-zone finding AVL003 may not).
 */
function comparablePlan(json: string): unknown {
  const plan = JSON.parse(json);
  delete plan.generatedAt;
  delete plan.insightsAsOf;
  plan.findings = plan.findings.filter((f: { code: string }) => f.code !== 'AVL003');
  return JSON.parse(
    JSON.stringify(plan)
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/(pod\/[^/"]+\/[a-z0-9-]+?)-[a-z0-9]{8,10}-[a-z0-9]{5}\b/g, '$1-<hash>')
      .replace(/(pod\/[^/"]+\/[a-z0-9-]+?)-[a-z0-9]{5}\b/g, '$1-<hash>')
      .replace(/(fargate-)?ip-\d+-\d+-\d+-\d+(\.[a-z0-9-]+\.compute\.internal)?/g, 'ip-<node>')
      .replace(/i-[0-9a-f]{17}/g, 'i-<id>')
      .replace(/which [^"]*? (drains|replaces)/g, 'which <group> $1'),
  );
}

describe('eks-upgrade snapshot', () => {
  for (const [scenario, to] of [['workshop', '1.26'], ['karpenter-lab', '1.31']] as const) {
    it(`the twin of ${scenario} gives the same plan as the cluster it copies`, async () => {
      const real = await running(scenario);
      const name = [...real.world.clusters.keys()][0];
      const file = join(process.env.TWIN_DIR ?? mkdtempSync(join(tmpdir(), 'twin-')), `${Math.random().toString(36).slice(2)}.yaml`);
      const written = await cli(real, ['snapshot', name, '--file', file]);
      expect(written.stderr).toBe('');
      expect(written.stdout).toContain(`Wrote the twin of ${name} to ${file}`);
      expect(countMutatingCalls(real)).toBe(0);

      const twin = await running(file);
      const original = await cli(real, ['plan', name, '--to', to, '--output', 'json']);
      const replayed = await cli(twin, ['plan', name, '--to', to, '--output', 'json']);
      expect(replayed.stderr).toBe('');
      expect(comparablePlan(replayed.stdout)).toEqual(comparablePlan(original.stdout));
    }, 60_000);
  }

  it('keeps no env values or command lines, and --anonymize hashes names', async () => {
    const real = await running('workshop');
    real.world.kube('eksworkshop-eksctl')!.create('deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'payments', namespace: 'orders' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'payments' } },
        template: {
          metadata: { labels: { app: 'payments' } },
          spec: { containers: [{ name: 'app', image: 'x', command: ['run', '--token=s3cr3t-cmd'], env: [{ name: 'DB_PASSWORD', value: 's3cr3t-env' }], resources: { requests: { cpu: '10m' } } }] },
        },
      },
    } as never);
    const file = join(process.env.TWIN_DIR ?? mkdtempSync(join(tmpdir(), 'twin-')), `${Math.random().toString(36).slice(2)}.yaml`);
    expect((await cli(real, ['snapshot', 'eksworkshop-eksctl', '--file', file, '--anonymize'])).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('eksworkshop-eksctl');
    expect(text).not.toContain('orders-pdb');
    expect(text).not.toContain('s3cr3t');
    expect(text).toContain('DB_PASSWORD');
    const twin = loadScenario(parseYaml(text));
    expect(twin.clusters[0].nodegroups).toHaveLength(3);
  }, 60_000);

  it('rehearse is refused beside a running upgrade of the same cluster, in a sentence', async () => {
    const real = await running('demo');
    const prefix = freshPrefix('rehearse-cli');
    const redis = new Redis(redisUrl);
    try {
      await createClusterLock(redis, engineKeys(prefix)).acquire({ jobId: 'u1234567', cluster: 'demo', from: '1.30', to: '1.31', requestedBy: 'U0REQ', channel: 'C0OPS', dryRun: false, at: Date.now() });
      const result = await cli(real, ['rehearse', 'demo', '--to', '1.31'], { QUEUE_PREFIX: prefix });
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toBe('eks-upgrade: an upgrade of demo is running (job u1234567); rehearse it once that upgrade has ended.\n');
      expect(countMutatingCalls(real)).toBe(0);
    } finally {
      await deleteKeys(`${prefix}*`);
      redis.disconnect();
    }
  }, 30_000);

  it('refuses without --file, in a sentence', async () => {
    const real = await running('demo');
    expect((await cli(real, ['snapshot', 'demo'])).stderr).toMatch(/^eks-upgrade: snapshot needs --file <twin.yaml>/);
  }, 30_000);
});
