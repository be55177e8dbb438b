/**
 * Plays EKS's Fargate scheduler: a pod whose namespace and labels match a Fargate profile gets
 * `schedulerName: fargate-scheduler` (EKS's admission webhook does this, so the ordinary scheduler leaves it
 * alone), then its own `fargate-ip-…` node whose kubelet is the control plane's version at that moment. A Fargate
 * pod keeps its node for life, so only a restart moves a workload to a newer kubelet; when the pod goes, so does
 * its node.
 */

import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { StoreEvent } from '../../kube/kube-store.js';
import { launchNode, removeNode } from '../node-factory.js';
import { kubeletVersionFor } from './version-catalog.js';
import type { SimCluster, SimFargateProfile, SimWorld } from '../world-types.js';

export const FARGATE_SCHEDULER = 'fargate-scheduler';
export const COMPUTE_TYPE_LABEL = 'eks.amazonaws.com/compute-type';
export const FARGATE_PROFILE_LABEL = 'eks.amazonaws.com/fargate-profile';
/** Simulated time from pod creation to the pod running on its Fargate node. */
export const FARGATE_START_MS = 30_000;

export function matchingProfile(cluster: SimCluster, pod: KubeObject): SimFargateProfile | undefined {
  const podLabels = pod.metadata.labels ?? {};
  for (const profile of cluster.fargateProfiles.values()) {
    for (const selector of profile.selectors) {
      if (selector.namespace !== pod.metadata.namespace) continue;
      if (Object.entries(selector.labels ?? {}).every(([k, v]) => podLabels[k] === v)) return profile;
    }
  }
  return undefined;
}

export function startFargateController(world: SimWorld, cluster: SimCluster): () => void {
  const pending = new Set<string>();
  const key = (pod: KubeObject) => `${pod.metadata.namespace}/${pod.metadata.name}`;

  const admit = (pod: KubeObject) => {
    if (pod.spec?.nodeName || pod.metadata.deletionTimestamp || pending.has(key(pod))) return;
    const profile = matchingProfile(cluster, pod);
    if (!profile) return;
    pending.add(key(pod));
    // The kubelet version is fixed when Fargate picks up the pod, not when it starts.
    const kubeletVersion = kubeletVersionFor(cluster.version);
    if (pod.spec?.schedulerName !== FARGATE_SCHEDULER) {
      cluster.store.mutate('pods', pod.metadata.name, pod.metadata.namespace, (p) => {
        p.spec.schedulerName = FARGATE_SCHEDULER;
        p.metadata.labels = { ...p.metadata.labels, [FARGATE_PROFILE_LABEL]: profile.name };
      });
    }
    world.after(FARGATE_START_MS, () => bind(pod.metadata.namespace ?? 'default', pod.metadata.name, profile, kubeletVersion));
  };

  const bind = (namespace: string, name: string, profile: SimFargateProfile, kubeletVersion: string) => {
    pending.delete(`${namespace}/${name}`);
    const pod = cluster.store.get('pods', name, namespace);
    if (!pod || pod.spec?.nodeName || pod.metadata.deletionTimestamp) return;
    const subnet = world.subnets.get(profile.subnets[Math.floor(world.random() * profile.subnets.length)]);
    if (!subnet) return;
    const nodeName = launchNode(world, {
      cluster,
      subnet,
      instanceType: 'fargate',
      fargate: true,
      labels: { [COMPUTE_TYPE_LABEL]: 'fargate', [FARGATE_PROFILE_LABEL]: profile.name },
      taints: [{ key: COMPUTE_TYPE_LABEL, value: 'fargate', effect: 'NoSchedule' }],
      kubeletVersion,
    });
    const node = cluster.store.get('nodes', nodeName);
    const ip = node?.status?.addresses?.find((a: { type: string }) => a.type === 'InternalIP')?.address;
    const now = new Date(world.clock.now()).toISOString();
    cluster.store.mutate('pods', name, namespace, (p) => {
      p.spec.nodeName = nodeName;
      p.metadata.annotations = { ...p.metadata.annotations, CapacityProvisioned: '0.25vCPU 0.5GB', Logging: 'LoggingDisabled: LOGGING_CONFIGMAP_NOT_FOUND' };
      const containers: Array<{ name: string; image?: string }> = p.spec.containers ?? [];
      p.status = {
        ...p.status,
        phase: 'Running',
        hostIP: ip,
        podIP: ip,
        podIPs: ip ? [{ ip }] : [],
        startTime: now,
        conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now })),
        containerStatuses: containers.map((c) => ({ name: c.name, image: c.image, ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } } })),
      };
    });
    world.log({ cluster: cluster.name, component: 'fargate', message: 'scheduled pod on Fargate', pod: `${namespace}/${name}`, node: nodeName, kubeletVersion });
  };

  const onEvent = (event: StoreEvent) => {
    if (event.resource !== 'pods') return;
    const pod = event.object;
    if (event.type === 'DELETED') {
      pending.delete(key(pod));
      const nodeName: string | undefined = pod.spec?.nodeName;
      if (nodeName?.startsWith('fargate-')) removeNode(world, cluster, nodeName);
      return;
    }
    admit(pod);
  };

  const unsubscribe = cluster.store.subscribe(onEvent);
  for (const pod of cluster.store.list('pods')) admit(pod);
  return unsubscribe;
}
