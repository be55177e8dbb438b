import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { buildPlan } from '../../src/planning/planner/build-plan.js';
import { policyFromConfig } from '../../src/planning/plan-policy.js';
import type { UpgradePlan } from '../../src/ports/upgrade-plan.js';
import { planJson } from '../../src/report/json-output.js';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { collectSnapshot } from '../../src/cluster-reader/collect-snapshot.js';
import { preflightReads } from '../../src/cluster-reader/preflight-reads.js';
import { simEnv, startSim } from '@eks-upgrade-bot/sim/kit';
import { until } from '../support/until.js';
import { simSources } from './read-path-harness.js';

/**
 * Issue 9's checks end to end: the real SDKs and client-node read the preflight-lab scenario from the simulator
 * (ReplicaSets, DaemonSets, Services, webhook configurations, Helm release secrets) and the plan names every new
 * code where the scenario planted it. `lab` → 1.31 with checks.helmReleases on; `lab-next` → 1.35.
 */
const run = promisify(execFile);
let sim: SimServer;
const config = parseClustersConfig({
  clusters: [
    { name: 'lab', region: 'us-west-2', channels: ['C0LAB'], requesters: ['U0REQ'], approvers: ['U0APP'], checks: { helmReleases: true } },
    {
      name: 'lab-next', region: 'us-west-2', channels: ['C0LAB'], requesters: ['U0REQ'], approvers: ['U0APP'],
      maintenanceWindow: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '10:00', end: '14:00' },
    },
  ],
});

async function plan(name: string, to: string): Promise<UpgradePlan> {
  const cluster = config.clusters.find((c) => c.name === name)!;
  const snapshot = await collectSnapshot(simSources(sim), { name, region: 'us-west-2', targetMinors: [to], ...preflightReads(cluster, 0) });
  return JSON.parse(JSON.stringify(planJson(buildPlan(snapshot, to, policyFromConfig(cluster)))));
}

beforeAll(async () => {
  sim = await startSim('preflight-lab', { speed: 600 });
  const store = sim.world.kube('lab')!;
  await until(
    () =>
      store.list('pods').every((p) => p.status?.phase === 'Running') &&
      store.list('statefulsets').every((s) => s.status?.readyReplicas === s.spec?.replicas) &&
      store.list('poddisruptionbudgets').every((p) => p.metadata.name === 'payments-pdb' || (p.status?.disruptionsAllowed ?? 0) >= 1),
    'lab to settle',
    { timeoutMs: 20_000 },
  );
  await until(() => sim.world.kube('lab-next')!.list('pods').every((p) => p.status?.phase === 'Running' && p.spec?.nodeName), 'lab-next to settle', { timeoutMs: 20_000 });
});
afterAll(async () => sim?.close());

describe('plan on preflight-lab', () => {
  it('lab → 1.31: availability, version-bound components and the Helm release, with what each means here', async () => {
    const result = await plan('lab', '1.31');
    const byCode = (code: string) => result.findings.filter((f) => f.code === code);
    for (const code of ['AVL001', 'AVL002', 'AVL003', 'AVL004', 'AVL005', 'AVL006', 'AVL007', 'CMP001', 'CMP002', 'CMP003', 'HLM001', 'HLM002']) {
      expect(byCode(code).length, code).toBeGreaterThan(0);
    }
    expect(byCode('AVL001').map((f) => f.resources[0]).sort()).toEqual(['deployment/policy/policy-webhook', 'deployment/store/payments', 'replicaset/store/legacy-worker']);
    expect(byCode('AVL001').find((f) => f.resources[0] === 'deployment/store/payments')!.title).toMatch(/^payments has 1 replica on ip-[\d-]+, which lab-ng's in-place update drains: it is unavailable until rescheduled/);
    expect(byCode('HLM001')[0]).toMatchObject({ severity: 'warning', resources: expect.arrayContaining(['helmrelease/monitoring/legacy-metrics', 'poddisruptionbudget/monitoring/legacy-metrics']) });
    expect(byCode('HLM001')[0].title).toContain('policy/v1beta1 PodDisruptionBudget, which was removed in 1.25');
    expect(byCode('CMP003')[0]).toMatchObject({ severity: 'warning' });
    // K8S004 on payments stays the one error; everything here is a warning.
    expect(result.findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual(['K8S004']);
  });

  it('lab → 1.32: the FlowSchema Helm applied as flowcontrol v1beta3 is removed on the way: an error', async () => {
    const result = await plan('lab', '1.32');
    const removed = result.findings.find((f) => f.code === 'HLM001' && f.title.includes('flowcontrol.apiserver.k8s.io/v1beta3'));
    expect(removed).toMatchObject({ severity: 'error', resources: expect.arrayContaining(['flowschema/monitoring/legacy-metrics']) });
  });

  it('lab-next → 1.35: Karpenter controller and NodePool pitfalls, the self-managed kube-proxy in IPVS mode', async () => {
    const result = await plan('lab-next', '1.35');
    const codes = result.findings.map((f) => `${f.code}:${f.severity}`);
    expect(codes).toEqual(expect.arrayContaining(['KAR007:error', 'KAR008:warning', 'KAR009:warning', 'CMP004:warning', 'CMP005:warning', 'NET003:warning', 'NG005:warning', 'KAR010:warning']));
    expect(result.findings.find((f) => f.code === 'NG005')!.title).toMatch(/^nodegroup\/lt-ng runs launch template lab-next-nodes version 1, but version 3 exists/);
    expect(result.findings.find((f) => f.code === 'KAR007')!.title).toBe('Karpenter 1.8.2 (deployment/kube-system/karpenter) does not support Kubernetes 1.35: its compatibility matrix needs 1.9.0 or later');
  });

  it('kubectl reads what the checks read: Helm release secrets by label, webhook configurations', async () => {
    const kubectl = (...args: string[]) => run('kubectl', ['--server', `${sim.url}/k8s/lab`, '--token', 'sim', ...args], { timeout: 20_000 });
    const secrets = JSON.parse((await kubectl('get', 'secrets', '-n', 'monitoring', '-l', 'owner=helm', '-o', 'json')).stdout);
    expect(secrets.items.map((s: any) => s.metadata.name).sort()).toEqual(['sh.helm.release.v1.legacy-metrics.v2', 'sh.helm.release.v1.legacy-metrics.v3']);
    const hooks = JSON.parse((await kubectl('get', 'validatingwebhookconfigurations', '-o', 'json')).stdout);
    expect(hooks.items[0].webhooks[0]).toMatchObject({ failurePolicy: 'Fail', clientConfig: { service: { name: 'policy-webhook' } } });
    // A ReplicaSet no Deployment owns gets its pod, as Kubernetes' ReplicaSet controller would.
    const rs = JSON.parse((await kubectl('get', 'replicaset', 'legacy-worker', '-n', 'store', '-o', 'json')).stdout);
    expect(rs.status).toMatchObject({ replicas: 1, readyReplicas: 1 });
    const eni = JSON.parse((await run('kubectl', ['--server', `${sim.url}/k8s/lab-next`, '--token', 'sim', 'get', 'eniconfigs', '-o', 'json'], { timeout: 20_000 })).stdout);
    expect(eni.items.map((e: any) => [e.metadata.name, e.spec.subnet])).toEqual([['us-west-2c', 'subnet-0c0ffee0000000001']]);
  });

  it('the aws CLI sees the launch template versions NG005 compares', async () => {
    const ng = sim.world.cluster('lab-next')!.nodegroups.get('lt-ng')!;
    const { stdout } = await run('aws', ['--endpoint-url', sim.url, '--region', 'us-west-2', '--output', 'json', 'ec2', 'describe-launch-template-versions', '--launch-template-id', ng.launchTemplate!.id, '--versions', '$Latest'], { env: simEnv(sim), timeout: 20_000 });
    expect(JSON.parse(stdout).LaunchTemplateVersions[0].VersionNumber).toBe(3);
  });
});
