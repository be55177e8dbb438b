import { describe, expect, it } from 'vitest';
import { checkFargate } from '../../src/planning/checks/fargate-checks.js';
import { codes, deploymentPod, healthySnapshot, node, pod, withKube } from './check-snapshot-fixture.js';

const fargateNode = (name: string, minor: string) => node(name, minor, { 'eks.amazonaws.com/compute-type': 'fargate', 'eks.amazonaws.com/fargate-profile': 'fp-assets' });

describe('Fargate checks (FRG0xx)', () => {
  it('FRG001: Fargate pods on an older kubelet need their workload restarted after the control plane moves', () => {
    let s = withKube(healthySnapshot(), 'nodes', [fargateNode('fargate-ip-1', '1.30'), fargateNode('fargate-ip-2', '1.30')]);
    s = withKube(s, 'pods', [deploymentPod('assets', 'assets', 1, 'fargate-ip-1', { app: 'assets' }), deploymentPod('assets', 'assets', 2, 'fargate-ip-2', { app: 'assets' })]);
    const [finding] = checkFargate(s, '1.31');
    expect(finding).toMatchObject({ code: 'FRG001', severity: 'warning', resources: ['deployment/assets/assets', 'pod/assets/assets-5b97f-1', 'pod/assets/assets-5b97f-2'] });
    expect(finding.title).toBe('2 Fargate pods of deployment assets/assets run kubelet v1.30.9-eks-0123abc and need a restart once the control plane is at 1.31');
    expect(finding.remedy).toContain('kubectl rollout restart deployment assets -n assets');
  });

  it('pods already on a target-version Fargate node need nothing; EC2 pods are not Fargate', () => {
    let s = withKube(healthySnapshot(), 'nodes', [fargateNode('fargate-ip-1', '1.31'), node('ip-1', '1.30')]);
    s = withKube(s, 'pods', [deploymentPod('assets', 'assets', 1, 'fargate-ip-1', { app: 'assets' }), deploymentPod('web', 'web', 1, 'ip-1', { app: 'web' })]);
    expect(checkFargate(s, '1.31')).toEqual([]);
  });

  it('FRG002: bare Fargate pods have nothing to recreate them', () => {
    let s = withKube(healthySnapshot(), 'nodes', [fargateNode('fargate-ip-1', '1.30')]);
    s = withKube(s, 'pods', [pod('tools', 'debug', 'fargate-ip-1', {})]);
    expect(codes(checkFargate(s, '1.31'))).toEqual(['FRG002:warning']);
  });
});
