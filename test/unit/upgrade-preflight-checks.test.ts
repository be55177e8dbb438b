import type { ClusterVersionInformation } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { checkKubeletSkew } from '../../src/planning/kubelet-skew.js';
import { blockingFindings, checkHopPreflight, fromPlanFindings, type PreflightSnapshot } from '../../src/planning/checks/preflight-checks.js';

const offered: ClusterVersionInformation[] = ['1.30', '1.31', '1.32', '1.33'].map((v) => ({ clusterVersion: v, versionStatus: 'STANDARD_SUPPORT' }));
const healthy: PreflightSnapshot = { cluster: 'demo', status: 'ACTIVE', version: '1.30', hopFrom: '1.30', target: '1.31', offered };
const codes = (s: PreflightSnapshot) => checkHopPreflight(s).map((f) => `${f.code}:${f.severity}`);

describe('checkHopPreflight', () => {
  it('finds nothing on a healthy cluster one minor below an offered target', () => {
    expect(checkHopPreflight(healthy)).toEqual([]);
  });

  it('stops on a target EKS does not offer, naming what it offers', () => {
    const findings = checkHopPreflight({ ...healthy, target: '1.34', offered });
    const blocking = blockingFindings(findings);
    expect(blocking.map((f) => f.code)).toContain('UPG004');
    expect(blocking.find((f) => f.code === 'UPG004')?.title).toBe('EKS does not offer 1.34 in this region (offered: 1.30, 1.31, 1.32, 1.33)');
  });

  it('stops on a cluster that is not ACTIVE, or moved since the job was planned', () => {
    expect(codes({ ...healthy, status: 'UPDATING' })).toEqual(['UPG001:error']);
    expect(codes({ ...healthy, version: '1.29' })).toEqual(['UPG003:error']);
  });

  it('does not stop on a version update to the target already in progress: it will be adopted', () => {
    const inProgress = { id: 'u9', status: 'InProgress' as const, type: 'VersionUpdate' as const, params: [{ type: 'Version' as const, value: '1.31' }] };
    const findings = checkHopPreflight({ ...healthy, status: 'UPDATING', inProgress });
    expect(blockingFindings(findings)).toEqual([]);
    expect(findings[0].title).toMatch(/already in progress; the control-plane step will follow it instead of starting another/);
  });

  it("takes the plan's findings, lets its errors be forced, and leaves out the state checks it replaces", () => {
    const plan = [
      { code: 'INS001', severity: 'error' as const, title: 'Deprecated APIs removed in Kubernetes v1.26', resources: ['insight/i1'], remedy: 'move the HPA to autoscaling/v2' },
      { code: 'EKS002', severity: 'error' as const, title: 'update of demo in progress', resources: [], remedy: 'wait' },
      { code: 'K8S002', severity: 'warning' as const, title: 'skew', resources: [], remedy: 'upgrade nodes' },
    ];
    expect(fromPlanFindings(plan).map((f) => [f.code, f.severity, f.forceable])).toEqual([
      ['INS001', 'error', true],
      ['K8S002', 'warning', false],
    ]);
  });
});

describe('checkKubeletSkew', () => {
  it('allows 3 minors of lag from 1.28 on, 2 before, and never a newer kubelet', () => {
    const nodes = [
      { name: 'a', kubeletVersion: 'v1.28.1-eks-1234567' },
      { name: 'b', kubeletVersion: 'v1.27.1-eks-1234567' },
      { name: 'c', kubeletVersion: 'v1.32.0-eks-1234567' },
    ];
    const report = checkKubeletSkew(nodes, '1.31');
    expect(report.tooOld.map((n) => n.name)).toEqual(['b']);
    expect(report.tooNew.map((n) => n.name)).toEqual(['c']);
    expect(checkKubeletSkew([{ name: 'x', kubeletVersion: 'v1.24.1-eks-1234567' }], '1.27').tooOld).toHaveLength(1);
  });
});
