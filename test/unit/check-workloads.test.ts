import { describe, expect, it } from 'vitest';
import { checkWorkloads } from '../../src/planning/checks/workload-checks.js';
import { codes, deployment, deploymentPod, healthySnapshot, node, pdb, withKube } from './check-snapshot-fixture.js';

function orders(opts: { replicas?: number; onFargate?: boolean; allowed?: number } = {}) {
  const replicas = opts.replicas ?? 1;
  let s = healthySnapshot();
  const nodes = [...(s.kube.nodes as any).value, node('fargate-ip-1', '1.30', { 'eks.amazonaws.com/compute-type': 'fargate' })];
  const target = opts.onFargate ? 'fargate-ip-1' : 'ip-10-0-1-1';
  const pods = Array.from({ length: replicas }, (_, i) => deploymentPod('orders', 'orders', i, target, { app: 'orders' }));
  s = withKube(s, 'nodes', nodes);
  s = withKube(s, 'pods', pods);
  s = withKube(s, 'deployments', [deployment('orders', 'orders', replicas)]);
  return withKube(s, 'pdbs', [pdb('orders', 'orders-pdb', { app: 'orders' }, { minAvailable: 1 }, opts.allowed ?? replicas - 1)]);
}

describe('workload checks (K8S003–K8S006)', () => {
  it('a PDB that allows a disruption is fine', () => {
    expect(checkWorkloads(healthySnapshot(), '1.31')).toEqual([]);
    expect(checkWorkloads(orders({ replicas: 2 }), '1.31')).toEqual([]);
  });

  it('K8S004: one replica behind minAvailable 1 blocks the drain of its node group, with the exact fix', () => {
    const [finding] = checkWorkloads(orders(), '1.31');
    expect(finding).toMatchObject({ code: 'K8S004', severity: 'error' });
    expect(finding.title).toBe('Deployment orders/orders has 1 replica and PDB orders-pdb requires minAvailable 1: its pod cannot be evicted, which blocks the drain of nodegroup/ng-a');
    expect(finding.resources).toEqual(['deployment/orders/orders', 'pdb/orders/orders-pdb', 'pod/orders/orders-5b97f-0']);
    expect(finding.remedy).toMatch(/^Scale orders to 2 replicas or it will block the drain: kubectl scale deployment orders -n orders --replicas=2/);
  });

  it('K8S004 is only information when the pod runs on Fargate (nothing drains it)', () => {
    expect(codes(checkWorkloads(orders({ onFargate: true }), '1.31'))).toEqual(['K8S004:info']);
  });

  it('nodes already at the target are not replaced, so their PDBs do not block', () => {
    let s = orders();
    s = withKube(s, 'nodes', [node('ip-10-0-1-1', '1.31'), node('ip-10-0-2-2', '1.31')]);
    expect(codes(checkWorkloads(s, '1.31'))).toEqual(['K8S004:info']);
  });

  it('K8S003: any other PDB allowing 0 disruptions (e.g. maxUnavailable 0) blocks', () => {
    let s = orders({ replicas: 2 });
    s = withKube(s, 'pdbs', [pdb('orders', 'strict', { app: 'orders' }, { maxUnavailable: 0 }, 0)]);
    const [finding] = checkWorkloads(s, '1.31');
    expect(finding).toMatchObject({ code: 'K8S003', severity: 'error' });
    expect(finding.title).toBe('PDB orders/strict allows 0 disruptions right now (2 pods covered): it will block the drain of nodegroup/ng-a');
  });

  it('computes allowed disruptions itself when the PDB has no status yet (2 replicas behind minAvailable 2)', () => {
    let s = orders({ replicas: 2 });
    s = withKube(s, 'pdbs', [pdb('orders', 'all', { app: 'orders' }, { minAvailable: 2 })]);
    expect(codes(checkWorkloads(s, '1.31'))).toEqual(['K8S004:error']);
  });

  it('K8S005: pods with karpenter.sh/do-not-disrupt on Karpenter nodes hold their node back', () => {
    let s = healthySnapshot();
    s = withKube(s, 'nodes', [node('karp-1', '1.30', { 'karpenter.sh/nodepool': 'default' })]);
    s = withKube(s, 'pods', [
      deploymentPod('batch', 'job', 1, 'karp-1', { app: 'job' }, { metadata: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } }),
    ]);
    s = withKube(s, 'pdbs', []);
    const [finding] = checkWorkloads(s, '1.31');
    expect(finding).toMatchObject({ code: 'K8S005', severity: 'warning', resources: ['pod/batch/job-5b97f-1 on node/karp-1'] });
  });

  it('K8S006: a pod on a replaced node with an EBS-backed PVC is tied to its zone; EFS is not', () => {
    let s = healthySnapshot();
    const volumes = (claimName: string) => ({ spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] } });
    s = withKube(s, 'pods', [
      deploymentPod('orders', 'orders-mysql', 1, 'ip-10-0-1-1', { app: 'mysql' }, volumes('order-mysql-pvc')),
      deploymentPod('assets', 'shared', 1, 'ip-10-0-1-1', { app: 'shared' }, volumes('shared-efs')),
    ]);
    s = withKube(s, 'pvcs', [
      { metadata: { name: 'order-mysql-pvc', namespace: 'orders' }, spec: { storageClassName: 'gp3' } },
      { metadata: { name: 'shared-efs', namespace: 'assets' }, spec: { storageClassName: 'efs' } },
    ]);
    s = withKube(s, 'pdbs', []);
    const found = checkWorkloads(s, '1.31');
    expect(codes(found)).toEqual(['K8S006:warning']);
    expect(found[0].title).toBe('deployment/orders/orders-mysql keeps its data on zonal volumes in us-west-2a: when nodegroup/ng-a is replaced it can only restart on a node in us-west-2a');
    expect(found[0].resources).toEqual(['deployment/orders/orders-mysql', 'nodegroup/ng-a', 'pvc/orders/order-mysql-pvc']);
  });

  it('says nothing when pods could not be read', () => {
    const s = healthySnapshot();
    s.kube = { ...s.kube, pods: { ok: false, error: 'x' } };
    expect(checkWorkloads(s, '1.31')).toEqual([]);
  });
});
