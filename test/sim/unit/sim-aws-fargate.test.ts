import { describe, expect, it } from 'vitest';
import { startClusterVersionUpdate } from '../../../src/sim/aws/eks/cluster-update.js';
import { useWorld } from './use-world.js';

/**
 * The simulated Fargate scheduler: a pod matching a Fargate profile gets its own fargate-ip-… node whose kubelet is
 * the control plane's version when the pod started, and keeps it until the pod is replaced.
 */
const world = useWorld();

describe('Fargate in the simulator', () => {
  it('runs assets on its own Fargate node and moves it to the new version only when the pod is restarted', async () => {
    const t = await world('workshop', { karpenter: false });
    const cluster = t.cluster();
    await t.clock.advance(60_000);
    const podOf = () => cluster.store.list('pods', 'assets').filter((p) => !p.metadata.deletionTimestamp);
    const [pod] = podOf();
    expect(pod.spec.schedulerName).toBe('fargate-scheduler');
    expect(pod.status.phase).toBe('Running');
    const node = cluster.store.get('nodes', pod.spec.nodeName)!;
    expect(node.metadata.name).toMatch(/^fargate-ip-10-0-\d+-\d+\.us-west-2\.compute\.internal$/);
    expect(node.metadata.labels).toMatchObject({ 'eks.amazonaws.com/compute-type': 'fargate', 'eks.amazonaws.com/fargate-profile': 'fp-assets' });
    expect(node.status.nodeInfo.kubeletVersion).toBe('v1.25.16-eks-2d5f260');
    // No DaemonSet pods on a Fargate node.
    expect(cluster.store.list('pods', 'kube-system').some((p) => p.spec.nodeName === node.metadata.name)).toBe(false);

    startClusterVersionUpdate(t.world, cluster, '1.26');
    await t.clock.advance(10 * 60_000);
    expect(cluster.store.get('nodes', node.metadata.name)?.status.nodeInfo.kubeletVersion).toBe('v1.25.16-eks-2d5f260');

    // kubectl rollout restart deployment assets -n assets
    cluster.store.mutate('deployments', 'assets', 'assets', (d) => {
      d.spec.template.metadata.annotations = { 'kubectl.kubernetes.io/restartedAt': new Date(t.clock.now()).toISOString() };
    });
    await t.advance(3 * 60_000);
    const [restarted] = podOf();
    expect(restarted.metadata.name).not.toBe(pod.metadata.name);
    expect(restarted.status.phase).toBe('Running');
    expect(cluster.store.get('nodes', restarted.spec.nodeName)?.status.nodeInfo.kubeletVersion).toBe('v1.26.15-eks-59bf375');
    expect(cluster.store.get('nodes', node.metadata.name)).toBeUndefined();
  });
});
