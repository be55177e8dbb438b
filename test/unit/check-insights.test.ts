import { describe, expect, it } from 'vitest';
import { checkInsights, describeApi, resourceFromUri } from '../../src/planning/checks/insight-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { codes, healthySnapshot, insight } from './check-snapshot-fixture.js';

const hpaDeprecation = insight({
  id: 'dep-126',
  name: 'Deprecated APIs removed in Kubernetes v1.26',
  kubernetesVersion: '1.26',
  status: 'ERROR',
  resources: [{ uri: '/apis/autoscaling/v2beta2/namespaces/ui/horizontalpodautoscalers/ui', status: 'ERROR' }],
  deprecations: [
    {
      usage: '/apis/autoscaling/v2beta2/horizontalpodautoscalers',
      replacedWith: '/apis/autoscaling/v2/horizontalpodautoscalers',
      stopServingVersion: '1.26',
      startServingReplacementVersion: '1.23',
      clients: [{ userAgent: 'argocd-application-controller/v0.0.0', requestsLast30Days: 48 }],
    },
  ],
});

function withInsights(...insights: ReturnType<typeof insight>[]) {
  const s = healthySnapshot();
  s.cluster = readOk({ ...(s.cluster as any).value, version: '1.25' });
  s.insights = readOk(insights);
  return s;
}

describe('insight checks (INS0xx)', () => {
  it('reads resource URIs and API paths the way people say them', () => {
    expect(resourceFromUri('/apis/autoscaling/v2beta2/namespaces/ui/horizontalpodautoscalers/ui')).toBe('horizontalpodautoscaler/ui/ui');
    expect(resourceFromUri('/api/v1/nodes/ip-10-0-1-1')).toBe('node/ip-10-0-1-1');
    expect(describeApi('/apis/autoscaling/v2beta2/horizontalpodautoscalers')).toBe('autoscaling/v2beta2 horizontalpodautoscalers');
  });

  it('INS001: a deprecated API removed on the way blocks, naming the object, the clients and the replacement', () => {
    const [finding] = checkInsights(withInsights(hpaDeprecation), '1.26');
    expect(finding).toMatchObject({ code: 'INS001', severity: 'error' });
    expect(finding.title).toBe('autoscaling/v2beta2 horizontalpodautoscalers is still in use and is removed in 1.26; use autoscaling/v2 horizontalpodautoscalers');
    expect(finding.resources).toEqual([
      'horizontalpodautoscaler/ui/ui',
      'clients: argocd-application-controller/v0.0.0 (48 requests in 30 days)',
      'insight/dep-126',
    ]);
    expect(finding.remedy).toContain('before the control plane reaches 1.26');
  });

  it('INS001: an API removed only after the target is a warning', () => {
    const later = { ...hpaDeprecation, status: 'WARNING' as const, kubernetesVersion: '1.27', deprecations: [{ ...hpaDeprecation.deprecations[0], stopServingVersion: '1.27' }] };
    expect(codes(checkInsights(withInsights(later), '1.26'))).toEqual(['INS001:warning']);
  });

  it('INS002: other non-passing insights are mirrored with their status; passing ones are not', () => {
    const found = checkInsights(
      withInsights(
        insight({ id: 'a', name: 'EKS add-on version compatibility', status: 'ERROR', reason: 'coredns is not compatible', resources: [{ arn: 'arn:aws:eks:…:addon/demo/coredns' }] }),
        insight({ id: 'b', name: 'Kubelet version skew', status: 'WARNING' }),
        insight({ id: 'c', name: 'Cluster health issues', status: 'UNKNOWN' }),
        insight({ id: 'd', status: 'PASSING' }),
      ),
      '1.26',
    );
    expect(codes(found)).toEqual(['INS002:error', 'INS002:warning', 'INS002:info']);
    expect(found[0].resources).toEqual(['insight/a', 'arn:aws:eks:…:addon/demo/coredns']);
    // EKS launched blocking on ERROR insights and then temporarily rolled it back: the remedy must not say it refuses.
    expect(found[0].remedy).toContain('EKS does not refuse the control-plane update for it today');
    expect(found[0].remedy).not.toContain('EKS refuses');
  });

  it('INS003: an HPA last applied as autoscaling/v2beta2 is flagged when no insight already named it', () => {
    const hpa = {
      metadata: {
        name: 'web',
        namespace: 'shop',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"autoscaling/v2beta2","kind":"HorizontalPodAutoscaler"}' },
      },
    };
    const s = withInsights();
    s.kube = { ...s.kube, hpas: readOk([hpa]) };
    const [finding] = checkInsights(s, '1.26');
    expect(finding).toMatchObject({ code: 'INS003', severity: 'warning', resources: ['horizontalpodautoscaler/shop/web'] });
    // Not when the target is before the removal, and not twice when the insight already names the object.
    expect(checkInsights(s, '1.25')).toEqual([]);
    const both = withInsights(hpaDeprecation);
    both.kube = { ...both.kube, hpas: readOk([{ ...hpa, metadata: { ...hpa.metadata, name: 'ui', namespace: 'ui' } }]) };
    expect(codes(checkInsights(both, '1.26'))).toEqual(['INS001:error']);
  });
});
