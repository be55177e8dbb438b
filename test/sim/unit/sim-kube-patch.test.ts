import { describe, expect, it } from 'vitest';
import { applyPatch, PatchError, patchKindOf } from '../../../src/sim/kube/objects/apply-patch.js';

const deployment = {
  metadata: { name: 'orders', labels: { app: 'orders' } },
  spec: {
    replicas: 1,
    template: {
      metadata: { labels: { app: 'orders' } },
      spec: {
        containers: [
          { name: 'orders', image: 'orders:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
          { name: 'sidecar', image: 'sidecar:1' },
        ],
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'OrdersApp', effect: 'NoSchedule' }],
      },
    },
  },
};

describe('patch content types', () => {
  it('maps the Content-Type kubectl and client-node send', () => {
    expect(patchKindOf('application/strategic-merge-patch+json')).toBe('strategic');
    expect(patchKindOf('application/merge-patch+json; charset=utf-8')).toBe('merge');
    expect(patchKindOf('application/json-patch+json')).toBe('json');
    expect(patchKindOf('application/json')).toBeUndefined();
  });
});

describe('strategic merge patch', () => {
  it('cordons a node as kubectl cordon does', () => {
    const node = { metadata: { name: 'n' }, spec: { providerID: 'aws:///us-west-2a/i-1' } };
    expect(applyPatch('strategic', node, { spec: { unschedulable: true } })).toEqual({ metadata: { name: 'n' }, spec: { providerID: 'aws:///us-west-2a/i-1', unschedulable: true } });
  });

  it('adds the restartedAt annotation as kubectl rollout restart does, leaving the rest of the template alone', () => {
    const patched: any = applyPatch('strategic', deployment, {
      spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' } } } },
    });
    expect(patched.spec.template.metadata).toEqual({ labels: { app: 'orders' }, annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' } });
    expect(patched.spec.template.spec.containers).toHaveLength(2);
  });

  it('merges containers and env by name, replaces lists without a merge key, and honours $patch: delete', () => {
    const patched: any = applyPatch('strategic', deployment, {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'orders', image: 'orders:2', env: [{ name: 'B', value: '3' }] }, { name: 'sidecar', $patch: 'delete' }],
            tolerations: [{ key: 'team', operator: 'Exists' }],
          },
        },
      },
    });
    expect(patched.spec.template.spec.containers).toEqual([{ name: 'orders', image: 'orders:2', env: [{ name: 'A', value: '1' }, { name: 'B', value: '3' }] }]);
    expect(patched.spec.template.spec.tolerations).toEqual([{ key: 'team', operator: 'Exists' }]);
  });

  it('removes fields set to null and ignores $setElementOrder directives', () => {
    const patched: any = applyPatch('strategic', deployment, { metadata: { labels: null }, spec: { '$setElementOrder/x': [], replicas: 3 } });
    expect(patched.metadata).toEqual({ name: 'orders' });
    expect(patched.spec.replicas).toBe(3);
    expect(patched.spec['$setElementOrder/x']).toBeUndefined();
  });

  it('merges finalizers as a set', () => {
    expect(applyPatch('strategic', { metadata: { finalizers: ['a'] } }, { metadata: { finalizers: ['a', 'b'] } })).toEqual({ metadata: { finalizers: ['a', 'b'] } });
  });
});

describe('JSON merge patch', () => {
  it('replaces lists wholesale (scale and NodePool budgets)', () => {
    const pool = { spec: { disruption: { budgets: [{ nodes: '10%' }], consolidationPolicy: 'WhenEmpty' } } };
    expect(applyPatch('merge', pool, { spec: { disruption: { budgets: [{ nodes: '1' }] } } })).toEqual({
      spec: { disruption: { budgets: [{ nodes: '1' }], consolidationPolicy: 'WhenEmpty' } },
    });
  });
});

describe('JSON patch', () => {
  it('adds, replaces, removes and appends with "-"', () => {
    const claim = { metadata: { name: 'c', annotations: { a: '1' } }, spec: { taints: [{ key: 'x' }] } };
    const patched = applyPatch('json', claim, [
      { op: 'replace', path: '/metadata/annotations/a', value: '2' },
      { op: 'add', path: '/metadata/annotations/karpenter.sh~1do-not-disrupt', value: 'true' },
      { op: 'add', path: '/spec/taints/-', value: { key: 'y' } },
      { op: 'remove', path: '/spec/taints/0' },
    ]);
    expect(patched).toEqual({ metadata: { name: 'c', annotations: { a: '2', 'karpenter.sh/do-not-disrupt': 'true' } }, spec: { taints: [{ key: 'y' }] } });
  });

  it('fails a test operation that does not hold, and a replace of a missing key', () => {
    expect(() => applyPatch('json', { spec: { replicas: 1 } }, [{ op: 'test', path: '/spec/replicas', value: 2 }])).toThrow(PatchError);
    expect(() => applyPatch('json', { spec: {} }, [{ op: 'replace', path: '/spec/replicas', value: 2 }])).toThrow(/missing/);
  });
});
