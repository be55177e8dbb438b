import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { blockingPods, describeNotice, noticeOf, type NoticeLookup } from '../../src/planning/workloads/disruption-notices.js';

const T0 = Date.UTC(2026, 0, 5, 12);
const lookup: NoticeLookup = {
  pools: new Set(['default']),
  since: T0,
  poolOfNode: (name) => (name.startsWith('ip-') ? 'default' : undefined),
  poolOfClaim: (name) => (name.startsWith('default-') ? 'default' : undefined),
  nodeOfClaim: (name) => (name === 'default-abcde' ? 'ip-10-0-1-5' : undefined),
};

function event(reason: string, kind: string, name: string, message: string, at = T0 + 60_000, component = 'karpenter'): KubeObject {
  return {
    metadata: { name: `${name}.1`, namespace: 'default' },
    involvedObject: { kind, name },
    reason, message, type: reason === 'FailedDraining' ? 'Warning' : 'Normal',
    source: { component }, lastTimestamp: new Date(at).toISOString(),
  };
}

describe('Karpenter events turned into thread notices', () => {
  it('reports a PDB that blocks a node, once per node and message', () => {
    const a = noticeOf(event('DisruptionBlocked', 'Node', 'ip-10-0-1-5', 'Pdb prevents pod evictions (PodDisruptionBudget=[checkout/checkout-pdb])'), lookup);
    expect(a).toMatchObject({ pool: 'default', node: 'ip-10-0-1-5', reason: 'DisruptionBlocked', pdbs: ['checkout/checkout-pdb'], pods: [] });
    const again = noticeOf(event('DisruptionBlocked', 'Node', 'ip-10-0-1-5', 'Pdb prevents pod evictions (PodDisruptionBudget=[checkout/checkout-pdb])', T0 + 120_000), lookup);
    expect(again?.key).toBe(a?.key);
    const other = noticeOf(event('DisruptionBlocked', 'Node', 'ip-10-0-1-5', 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=checkout/redis-0)'), lookup);
    expect(other?.key).not.toBe(a?.key);
    expect(other?.pods).toEqual(['checkout/redis-0']);
  });

  it('maps a NodeClaim event to its node, and reads FailedDraining and the v1.0 message form', () => {
    expect(noticeOf(event('DisruptionBlocked', 'NodeClaim', 'default-abcde', 'Cannot disrupt Node: pdb "orders/orders-pdb" prevents pod evictions'), lookup)).toMatchObject({
      node: 'ip-10-0-1-5', pdbs: ['orders/orders-pdb'],
    });
    expect(noticeOf(event('FailedDraining', 'Node', 'ip-10-0-2-7', 'Failed to drain node, evicting pod violates a PDB (Pod=checkout/checkout-1)'), lookup)).toMatchObject({
      reason: 'FailedDraining', pods: ['checkout/checkout-1'],
    });
  });

  it('ignores old events, other pools, other components, routine messages and the NodePool budget event', () => {
    expect(noticeOf(event('DisruptionBlocked', 'Node', 'ip-1', 'Pdb prevents pod evictions (PodDisruptionBudget=[a/b])', T0 - 60_000), lookup)).toBeUndefined();
    expect(noticeOf(event('DisruptionBlocked', 'Node', 'gpu-node', 'Pdb prevents pod evictions (PodDisruptionBudget=[a/b])'), lookup)).toBeUndefined();
    expect(noticeOf(event('DisruptionBlocked', 'Node', 'ip-1', 'x', T0 + 1, 'kubelet'), lookup)).toBeUndefined();
    expect(noticeOf(event('DisruptionBlocked', 'Node', 'ip-1', "Node isn't initialized"), lookup)).toBeUndefined();
    expect(noticeOf(event('DisruptionBlocked', 'NodePool', 'default', 'No allowed disruptions for disruption reason Drifted due to blocking budget'), lookup)).toBeUndefined();
    expect(noticeOf(event('Evicted', 'Pod', 'p', 'Evicted pod: Drifted'), lookup)).toBeUndefined();
  });

  it('names the blocking pods on the node that the PDB protects, and says what to do', () => {
    const notice = noticeOf(event('DisruptionBlocked', 'Node', 'ip-10-0-1-5', 'Pdb prevents pod evictions (PodDisruptionBudget=[checkout/checkout-pdb])'), lookup)!;
    const pdb: KubeObject = { metadata: { name: 'checkout-pdb', namespace: 'checkout' }, spec: { selector: { matchLabels: { app: 'checkout' } } } };
    const pod = (name: string, nodeName: string, app = 'checkout'): KubeObject => ({ metadata: { name, namespace: 'checkout', labels: { app } }, spec: { nodeName } });
    const pods = blockingPods(notice, [pod('checkout-1', 'ip-10-0-1-5'), pod('checkout-2', 'ip-10-0-9-9'), pod('redis', 'ip-10-0-1-5', 'redis')], [pdb]);
    expect(pods).toEqual(['checkout/checkout-1']);
    expect(describeNotice(notice, pods)).toBe(
      [
        'Karpenter cannot replace node ip-10-0-1-5 (NodePool default): Pdb prevents pod evictions (PodDisruptionBudget=[checkout/checkout-pdb])',
        'Blocking pods: checkout/checkout-1',
        'What to do: scale the workload up or relax its PodDisruptionBudget so one pod may go; Karpenter retries on its own. Pause holds the rollout meanwhile.',
      ].join('\n'),
    );
  });
});
