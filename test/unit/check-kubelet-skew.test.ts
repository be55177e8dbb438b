import { describe, expect, it } from 'vitest';
import { checkKubeletSkew } from '../../src/planning/checks/kubelet-skew-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { codes, healthySnapshot, node } from './check-snapshot-fixture.js';

function cluster(controlPlane: string, nodeMinors: string[]) {
  const s = healthySnapshot();
  s.cluster = readOk({ ...(s.cluster as any).value, version: controlPlane });
  s.kube = { ...s.kube, nodes: readOk(nodeMinors.map((minor, i) => node(`n${i}`, minor, { 'eks.amazonaws.com/nodegroup': i === 0 ? 'old' : 'ng-a' }))) };
  return s;
}

describe('kubelet skew checks (K8S001 now, K8S002 after the next control-plane upgrade)', () => {
  it('nodes at the control plane version are fine now and after', () => {
    expect(checkKubeletSkew(cluster('1.30', ['1.30', '1.30']), '1.31')).toEqual([]);
  });

  it('since 1.28 a kubelet may lag 3 minors: lag 3 after the hop is a warning (at the limit), lag 4 an error', () => {
    // Control plane 1.30 → 1.31: nodes at 1.28 will lag 3, nodes at 1.27 would lag 4.
    expect(codes(checkKubeletSkew(cluster('1.30', ['1.28', '1.30']), '1.31'))).toEqual(['K8S002:warning']);
    const found = checkKubeletSkew(cluster('1.30', ['1.27', '1.30']), '1.31');
    expect(codes(found)).toEqual(['K8S002:error']);
    expect(found[0].title).toBe('1 node would be more than 3 minors behind once the control plane is at 1.31 (kubelets may be up to 3 minors older than the control plane since 1.28 (2 before), never newer)');
    expect(found[0].resources).toEqual(['nodegroup/old: kubelet 1.27 (1 node)']);
  });

  it('the 1.27 vs 1.28 rule: the same 3-minor lag is an error going to 1.27 and only a warning going to 1.28', () => {
    // 1.26 → 1.27: apiserver 1.27 allows 2; nodes at 1.24 would lag 3.
    expect(codes(checkKubeletSkew(cluster('1.26', ['1.24']), '1.27'))).toEqual(['K8S002:error']);
    // 1.27 → 1.28: apiserver 1.28 allows 3; nodes at 1.25 would lag 3.
    expect(codes(checkKubeletSkew(cluster('1.27', ['1.25']), '1.28'))).toEqual(['K8S002:warning']);
  });

  it('K8S001: a kubelet newer than the control plane is never allowed', () => {
    const found = checkKubeletSkew(cluster('1.30', ['1.31', '1.30']), '1.31');
    expect(codes(found)).toEqual(['K8S001:error']);
    expect(found[0].title).toContain('newer than the 1.30 control plane');
  });

  it('K8S001: nodes already outside the policy are reported as they are now', () => {
    // 1.26 control plane allows 2: nodes at 1.23 lag 3 now (and 4 after).
    expect(codes(checkKubeletSkew(cluster('1.26', ['1.23']), '1.27'))).toEqual(['K8S001:error', 'K8S002:error']);
  });

  it('groups offenders per compute group and counts them', () => {
    const s = cluster('1.30', ['1.27', '1.27', '1.27']);
    expect(checkKubeletSkew(s, '1.31')[0].resources).toEqual(['nodegroup/ng-a: kubelet 1.27 (2 nodes)', 'nodegroup/old: kubelet 1.27 (1 node)']);
  });
});
