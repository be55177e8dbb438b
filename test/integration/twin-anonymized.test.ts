import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { runCli } from '../../src/cli/run-cli.js';
import type { UpgradePlan } from '../../src/ports/upgrade-plan.js';
import { redisUrl } from '../support/redis-url.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { settled, simSources } from './read-path-harness.js';

/**
 * Issue 23, item 5: `snapshot --anonymize` of the workshop hides every name the workshop gives — cluster, node
 * groups, launch templates, Auto Scaling groups, Fargate profiles, namespaces, workloads, containers, label and taint
 * values, images — and hashes each the same way wherever it appears, so the twin schedules exactly as the original
 * (no pod left Pending that the original runs) and plans the same upgrade, names aside.
 */
const started: SimServer[] = [];
afterAll(async () => Promise.all(started.map((s) => s.close())));

async function cli(sim: SimServer, args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { env: { AWS_REGION: 'us-west-2', REDIS_URL: redisUrl }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), sources: () => simSources(sim), fileExists: () => false });
  return { code, stdout, stderr };
}

/** What Kubernetes, EKS and Karpenter give a meaning of their own: not the workshop's names. */
const SYSTEM = new Set(['default', 'kube-system', 'aws-node', 'kube-proxy', 'coredns', 'kube-dns', 'karpenter', 'true', 'false']);

/** Every name the workshop scenario gives, read from its file (not from the code under test). */
function workshopNames(): string[] {
  const scenario = parseYaml(readFileSync(new URL('../../src/sim/scenarios/workshop.yaml', import.meta.url), 'utf8'));
  const names = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string' && !SYSTEM.has(value) && !/^\d+$/.test(value)) names.add(value);
  };
  const labels = (map: Record<string, string> | undefined) => Object.values(map ?? {}).forEach(add);
  const podSpec = (spec: any) => {
    for (const c of spec?.containers ?? []) {
      add(c.name);
      if (!/^\d+\.dkr\.ecr\./.test(c.image)) add(String(c.image).replace(/[:@].*$/, '').split('/').pop());
    }
    labels(spec?.nodeSelector);
    for (const t of spec?.tolerations ?? []) add(t.value);
    for (const v of spec?.volumes ?? []) add(v.persistentVolumeClaim?.claimName);
  };
  for (const cluster of scenario.clusters) {
    add(cluster.name);
    for (const ng of cluster.nodegroups ?? []) {
      add(ng.name);
      add(ng.launchTemplate?.name);
      labels(ng.labels);
      for (const t of ng.taints ?? []) add(t.value);
    }
    for (const asg of cluster.selfManaged ?? []) {
      add(asg.name);
      labels(asg.labels);
    }
    for (const profile of cluster.fargateProfiles ?? []) {
      add(profile.name);
      for (const s of profile.selectors ?? []) add(s.namespace);
    }
    for (const pool of cluster.karpenter?.nodePools ?? []) {
      labels(pool.spec?.template?.metadata?.labels);
      for (const t of pool.spec?.template?.spec?.taints ?? []) add(t.value);
    }
    for (const object of cluster.kubernetes ?? []) {
      if (object.metadata.namespace === 'kube-system') continue;
      add(object.metadata.name);
      add(object.metadata.namespace);
      labels(object.metadata.labels);
      labels(object.spec?.selector?.matchLabels);
      labels(object.spec?.template?.metadata?.labels);
      podSpec(object.spec?.template?.spec ?? (object.kind === 'Pod' ? object.spec : undefined));
    }
  }
  return [...names];
}

const whole = (name: string) => new RegExp(`(^|[^A-Za-z0-9_.-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_-])`);

/** A plan's shape without its names: per hop the steps' kinds, strategies and actions; the findings' codes. */
function shape(json: string) {
  const plan = JSON.parse(json) as UpgradePlan;
  return {
    hops: plan.hops.map((hop) => hop.steps.map((s) => `${s.kind} ${s.strategy ?? ''} ${s.actions.map((a) => `${a.action}${a.to ? ` ${a.to}` : ''}`).sort().join(',')}${s.gate ? ' gate' : ''}`).sort()),
    findings: plan.findings.filter((f) => f.code !== 'AVL003').map((f) => `${f.code} ${f.severity} ${f.resources.length}`).sort(),
    blocking: plan.blocking,
  };
}

describe('eks-upgrade snapshot --anonymize', () => {
  it('the anonymized twin of the workshop names nothing of the workshop, schedules every pod the original runs and plans the same upgrade', async () => {
    const real = await startSim('workshop', { speed: 600 });
    started.push(real);
    await settled(real, 'eksworkshop-eksctl');
    const file = join(mkdtempSync(join(tmpdir(), 'twin-anon-')), 'twin-anon.yaml');
    const written = await cli(real, ['snapshot', 'eksworkshop-eksctl', '--anonymize', '--file', file]);
    expect(written.stderr).toBe('');

    const text = readFileSync(file, 'utf8');
    const names = workshopNames();
    expect(names).toEqual(expect.arrayContaining(['eksworkshop-eksctl', 'OrdersMNG', 'OrdersApp', 'carts', 'CheckoutApp', 'orders-pdb', 'retail-store-sample-ui', 'mysql']));
    expect(names.filter((name) => whole(name).test(text))).toEqual([]);
    expect(text).toMatch(/image: image-[0-9a-f]{10}:0\.4\.0/);

    // Replayed, the twin runs every pod the original runs: none left Pending.
    const twin = await startSim(file, { speed: 600 });
    started.push(twin);
    const hidden = [...twin.world.clusters.keys()][0];
    const podsOf = (sim: SimServer, cluster: string) => sim.world.kube(cluster)!.list('pods');
    await settled(twin, hidden).catch(() => undefined);
    const pending = podsOf(twin, hidden).filter((p) => !p.spec?.nodeName || p.status?.phase !== 'Running').map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    expect(pending).toEqual([]);
    expect(podsOf(twin, hidden).length).toBe(podsOf(real, 'eksworkshop-eksctl').length);

    // And it plans the same upgrade, names aside.
    const original = await cli(real, ['plan', 'eksworkshop-eksctl', '--to', '1.26', '--output', 'json']);
    const replayed = await cli(twin, ['plan', hidden, '--to', '1.26', '--output', 'json']);
    expect(replayed.stderr).toBe('');
    expect(shape(replayed.stdout)).toEqual(shape(original.stdout));
  }, 120_000);
});
