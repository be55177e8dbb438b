import { describe, expect, it } from 'vitest';
import { checkComponents } from '../../src/planning/checks/component-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { splitImage } from '../../src/planning/controller-versions.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { codes, deploymentPod, healthySnapshot, node, withKube } from './check-snapshot-fixture.js';

const workload = (kind: string, namespace: string, name: string, image: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({ kind, metadata: { name, namespace }, spec: { replicas: 1, template: { spec: { containers: [{ name, image, ...extra }] } } } }) as KubeObject;

function withDeployments(...deployments: KubeObject[]) {
  return withKube(healthySnapshot(), 'deployments', deployments);
}

function webhook(failurePolicy?: string): KubeObject {
  return {
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'policy' },
    webhooks: [{ name: 'validate.policy.example.com', clientConfig: { service: { namespace: 'policy', name: 'policy-webhook' } }, ...(failurePolicy ? { failurePolicy } : {}) }],
  } as unknown as KubeObject;
}

describe('version-bound components (CMP001–CMP005)', () => {
  it('reads images the way registries write them', () => {
    expect(splitImage('registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.2')).toEqual({ repository: 'autoscaling/cluster-autoscaler', tag: 'v1.30.2' });
    expect(splitImage('602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-load-balancer-controller:v2.3.1@sha256:abc')).toEqual({ repository: 'amazon/aws-load-balancer-controller', tag: 'v2.3.1' });
    expect(splitImage('localhost:5000/karpenter/controller')).toEqual({ repository: 'karpenter/controller', tag: undefined });
  });

  it('CMP001: cluster-autoscaler whose minor is not the target', () => {
    const [finding] = checkComponents(withDeployments(workload('Deployment', 'kube-system', 'cluster-autoscaler', 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.2')), '1.31');
    expect(finding).toMatchObject({ code: 'CMP001', severity: 'warning', resources: ['deployment/kube-system/cluster-autoscaler'] });
    expect(finding.title).toBe('cluster-autoscaler 1.30.2 (deployment/kube-system/cluster-autoscaler) is built for Kubernetes 1.30; after the upgrade the cluster runs 1.31');
    expect(checkComponents(withDeployments(workload('Deployment', 'kube-system', 'cluster-autoscaler', 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.31.0')), '1.31')).toEqual([]);
  });

  it('CMP002: a known controller older than the version that supports a minor on the way', () => {
    const s = withDeployments(
      workload('Deployment', 'ingress', 'ingress-nginx-controller', 'registry.k8s.io/ingress-nginx/controller:v1.10.1'),
      workload('Deployment', 'kube-system', 'aws-load-balancer-controller', 'public.ecr.aws/eks/aws-load-balancer-controller:v2.8.1'),
    );
    const [finding] = checkComponents(s, '1.31');
    expect(finding.title).toBe('ingress-nginx 1.10.1 (deployment/ingress/ingress-nginx-controller) is older than 1.12.0, the first version that supports Kubernetes 1.31');
    expect(codes(checkComponents(withDeployments(workload('Deployment', 'kube-system', 'lbc', 'amazon/aws-load-balancer-controller:v2.3.1')), '1.31'))).toEqual(['CMP002:warning']);
  });

  it('CMP003: a fail-closed webhook with no ready backend blocks; one backend on a replaced node warns; Ignore is fine', () => {
    let s = withKube(healthySnapshot(), 'webhooks', [webhook()]);
    s = withKube(s, 'services', [{ metadata: { name: 'policy-webhook', namespace: 'policy' }, spec: { selector: { app: 'policy' } } }]);
    expect(codes(checkComponents(s, '1.31'))).toEqual(['CMP003:error']);
    const one = withKube(s, 'pods', [deploymentPod('policy', 'policy', 1, 'ip-10-0-1-1', { app: 'policy' })]);
    const [finding] = checkComponents(one, '1.31');
    expect(finding).toMatchObject({ code: 'CMP003', severity: 'warning' });
    expect(finding.title).toMatch(/its only ready backend policy\/policy-5b97f-1 runs on ip-10-0-1-1, which the upgrade replaces/);
    const two = withKube(one, 'pods', [deploymentPod('policy', 'policy', 1, 'ip-10-0-1-1', { app: 'policy' }), deploymentPod('policy', 'policy', 2, 'ip-10-0-2-2', { app: 'policy' })]);
    expect(checkComponents(two, '1.31')).toEqual([]);
    expect(checkComponents(withKube(s, 'webhooks', [webhook('Ignore')]), '1.31')).toEqual([]);
  });

  it('CMP004 / CMP005: a self-managed kube-proxy behind the target, and IPVS where the target deprecates it', () => {
    let s = healthySnapshot();
    s.addons = readOk((s.addons as any).value.filter((a: any) => a.name !== 'kube-proxy'));
    s.versions = readOk(['1.34', '1.35'].map((version) => ({ version, support: 'standard' as const })));
    s.cluster = readOk({ ...(s.cluster as any).value, version: '1.34' });
    s = withKube(s, 'nodes', [node('ip-10-0-1-1', '1.34')]);
    s = withKube(s, 'daemonsets', [{ metadata: { name: 'kube-proxy', namespace: 'kube-system' }, spec: { template: { spec: { containers: [{ name: 'kube-proxy', image: '602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy:v1.34.1-minimal-eksbuild.2', command: ['kube-proxy', '--proxy-mode=ipvs'] }] } } } }]);
    expect(codes(checkComponents(s, '1.35'))).toEqual(['CMP004:warning', 'CMP005:warning']);
    const old = withKube(s, 'daemonsets', [{ metadata: { name: 'kube-proxy', namespace: 'kube-system' }, spec: { template: { spec: { containers: [{ name: 'kube-proxy', image: 'eks/kube-proxy:v1.30.0' }] } } } }]);
    expect(codes(checkComponents(old, '1.35'))).toEqual(['CMP004:error']);
  });
});
