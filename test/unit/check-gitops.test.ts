import { describe, expect, it } from 'vitest';
import { argoManager, checkGitOps, isTerraformManaged } from '../../src/planning/checks/gitops-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { codes, healthySnapshot, nodegroup } from './check-snapshot-fixture.js';

const object = (labels: Record<string, string> = {}, annotations: Record<string, string> = {}): KubeObject => ({ metadata: { name: 'x', labels, annotations } });

function withKarpenterLabels(labels: Record<string, string>) {
  const s = healthySnapshot();
  const pool = { metadata: { name: 'default', labels }, spec: { template: { spec: { nodeClassRef: { name: 'default' } } } } };
  const cls = { metadata: { name: 'default', labels }, spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0abc' }] } };
  s.kube = { ...s.kube, karpenter: readOk({ nodePools: [pool], nodeClaims: [], nodeClasses: [cls] }) };
  return s;
}

describe('GitOps and IaC checks (OPS0xx)', () => {
  it('recognises Argo CD tracking: its instance label, tracking-id annotation, or app.kubernetes.io/instance with argocd keys', () => {
    expect(argoManager(object({ 'argocd.argoproj.io/instance': 'karpenter' }))).toEqual({ tool: 'Argo CD', app: 'karpenter' });
    expect(argoManager(object({}, { 'argocd.argoproj.io/tracking-id': 'ui:apps/Deployment:ui/ui' }))).toEqual({ tool: 'Argo CD', app: 'ui' });
    expect(argoManager(object({ 'app.kubernetes.io/instance': 'web' }, { 'argocd.argoproj.io/sync-options': 'Prune=false' }))).toEqual({ tool: 'Argo CD', app: 'web' });
    expect(argoManager(object({ 'app.kubernetes.io/instance': 'web' }))).toEqual({ tool: 'Argo CD or Helm', app: 'web' });
    expect(argoManager(object({ 'app.kubernetes.io/instance': 'web', 'app.kubernetes.io/managed-by': 'Helm' }))).toBeUndefined();
  });

  it('OPS001: Argo CD-managed objects the upgrade changes live, grouped per application, with what changes', () => {
    const [finding] = checkGitOps(withKarpenterLabels({ 'argocd.argoproj.io/instance': 'karpenter' }), '1.31');
    expect(finding).toMatchObject({ code: 'OPS001', severity: 'warning', resources: ['nodepool/default (disruption budget)', 'ec2nodeclass/default (amiSelectorTerms)'] });
    expect(finding.remedy).toContain('argocd app set karpenter --sync-policy none');
    expect(codes(checkGitOps(withKarpenterLabels({ 'app.kubernetes.io/instance': 'karpenter' }), '1.31'))).toEqual(['OPS001:info']);
    expect(checkGitOps(withKarpenterLabels({}), '1.31')).toEqual([]);
  });

  it('OPS002: Terraform-tagged cluster, node groups and add-ons — the code must follow', () => {
    expect(isTerraformManaged({ GithubRepo: 'github.com/aws-ia/terraform-aws-eks-blueprints' })).toBe(true);
    expect(isTerraformManaged({ Blueprint: 'eksworkshop-eksctl' })).toBe(true);
    expect(isTerraformManaged({ team: 'platform' })).toBe(false);
    const s = healthySnapshot();
    s.cluster = readOk({ ...(s.cluster as any).value, tags: { 'terraform-aws-modules': 'eks' } });
    s.nodegroups = readOk([nodegroup('ng-a', { tags: { ManagedBy: 'Terraform' } })]);
    const [finding] = checkGitOps(s, '1.31');
    expect(finding).toMatchObject({ code: 'OPS002', severity: 'warning', resources: ['cluster/demo (version → 1.31)', 'nodegroup/ng-a (version / AMI)'] });
    expect(finding.remedy).toContain('cluster_version = "1.31"');
  });

  it('OPS003: eksctl-created clusters keep their version in the ClusterConfig', () => {
    const s = healthySnapshot();
    s.cluster = readOk({ ...(s.cluster as any).value, tags: { 'alpha.eksctl.io/cluster-name': 'demo' } });
    expect(codes(checkGitOps(s, '1.31'))).toEqual(['OPS003:info']);
  });
});
