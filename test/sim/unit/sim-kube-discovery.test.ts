import { describe, expect, it } from 'vitest';
import { apiGroupList, apiResourceList, versionInfo } from '../../../src/sim/kube/api/discovery.js';
import { parseResourcePath } from '../../../src/sim/kube/api/request-path.js';

describe('discovery documents', () => {
  it('reports the EKS version as kubectl version shows it', () => {
    expect(versionInfo('v1.25.16-eks-2d5f260')).toMatchObject({ major: '1', minor: '25+', gitVersion: 'v1.25.16-eks-2d5f260', platform: 'linux/amd64' });
  });

  it('lists pods/eviction in /api/v1 as policy/v1 Eviction (kubectl drain needs it) and the short names kubectl resolves', () => {
    const core: any = apiResourceList('v1.30.14-eks-f69f56f', '', 'v1');
    const byName = Object.fromEntries(core.resources.map((r: any) => [r.name, r]));
    expect(byName['pods/eviction']).toEqual({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    expect(byName['nodes']).toMatchObject({ kind: 'Node', namespaced: false, shortNames: ['no'] });
    expect(byName['pods']).toMatchObject({ shortNames: ['po'], categories: ['all'] });
    const apps: any = apiResourceList('v1.30.14-eks-f69f56f', 'apps', 'v1');
    expect(apps.resources.find((r: any) => r.name === 'deployments/scale')).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const karpenter: any = apiResourceList('v1.30.14-eks-f69f56f', 'karpenter.k8s.aws', 'v1');
    expect(karpenter.resources[0]).toMatchObject({ name: 'ec2nodeclasses', namespaced: false, shortNames: ['ec2nc', 'ec2ncs'], categories: ['karpenter'] });
  });

  it('serves autoscaling/v2beta2 HPAs only up to Kubernetes 1.25, where it was removed', () => {
    const groups = (git: string) => (apiGroupList(git) as any).groups.find((g: any) => g.name === 'autoscaling');
    expect(groups('v1.25.16-eks-2d5f260').versions.map((v: any) => v.version)).toEqual(['v2', 'v2beta2']);
    expect(groups('v1.26.15-eks-59bf375').versions.map((v: any) => v.version)).toEqual(['v2']);
    expect(parseResourcePath('/apis/autoscaling/v2beta2/namespaces/ui/horizontalpodautoscalers/ui', 'v1.25.16-eks-2d5f260')).toMatchObject({ name: 'ui', namespace: 'ui', version: 'v2beta2' });
    expect(parseResourcePath('/apis/autoscaling/v2beta2/namespaces/ui/horizontalpodautoscalers/ui', 'v1.26.15-eks-59bf375')).toBeUndefined();
  });

  it('routes namespaced, cluster-scoped, subresource and legacy watch paths', () => {
    const git = 'v1.30.14-eks-f69f56f';
    expect(parseResourcePath('/api/v1/namespaces/orders/pods/p/eviction', git)).toMatchObject({ namespace: 'orders', name: 'p', subresource: 'eviction' });
    expect(parseResourcePath('/api/v1/namespaces/orders', git)).toMatchObject({ name: 'orders', namespace: undefined });
    expect(parseResourcePath('/api/v1/watch/namespaces/orders/pods', git)).toMatchObject({ namespace: 'orders', watchPrefix: true });
    expect(parseResourcePath('/apis/karpenter.sh/v1/nodeclaims/default-x7k2p', git)).toMatchObject({ name: 'default-x7k2p' });
    expect(parseResourcePath('/api/v1/pods/p', git)).toBeUndefined();
    expect(parseResourcePath('/apis/karpenter.sh/v1beta1/nodeclaims', git)).toBeUndefined();
  });
});
