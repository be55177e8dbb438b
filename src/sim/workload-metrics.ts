import type { SimCluster, SimWorld } from './aws/world-types.js';
import { selectorMatches } from './kube/api/label-selector.js';
import { isPodReady } from './kube/controllers/pdb-status.js';
import type { KubeObject } from '../kube-types/kube-object.js';

/**
 * GET /_sim/metrics: the simulated clusters' workloads as a Prometheus scrape target, in the names and labels
 * kube-state-metrics gives them (https://github.com/kubernetes/kube-state-metrics/tree/main/docs/metrics/workload:
 * deployment-metrics.md, pod-metrics.md), so a guard's PromQL written for a real cluster runs unchanged against the
 * simulator. Every series carries `cluster="<name>"`, as the per-cluster relabelling of a fleet's Prometheus (or
 * Amazon Managed Prometheus's external labels) adds it. Values are read from the world at scrape time: pods evicted,
 * pending or failing readiness during a drain lower the available replicas and the Service's availability.
 *
 * Text exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format):
 * one `# HELP` and one `# TYPE` line per metric family, its samples together after them, label values escaped
 * (backslash, double quote, line feed), the last line ending in a line feed.
 */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Record<string, string>;
interface Family {
  name: string;
  help: string;
  samples: Array<{ labels: Labels; value: number }>;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function renderFamily(family: Family): string {
  const lines = [`# HELP ${family.name} ${family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${family.name} gauge`];
  for (const { labels, value } of family.samples) {
    const text = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',');
    lines.push(`${family.name}{${text}} ${value}`);
  }
  return `${lines.join('\n')}\n`;
}

function read(cluster: SimCluster, resource: string): readonly KubeObject[] {
  try {
    return cluster.store.read(resource);
  } catch {
    return [];
  }
}

/** kube_pod_status_ready's condition label: the Ready condition's status, lower-cased; no condition → none. */
function readyCondition(pod: KubeObject): 'true' | 'false' | 'unknown' | undefined {
  const ready = (pod.status?.conditions ?? []).find((c: { type?: string }) => c.type === 'Ready');
  if (!ready) return undefined;
  return ready.status === 'True' ? 'true' : ready.status === 'False' ? 'false' : 'unknown';
}

/** A pod that backs a Service's ready endpoints: Ready and not terminating (the EndpointSlice controller's rule). */
function servesEndpoints(pod: KubeObject): boolean {
  return isPodReady(pod) && !pod.metadata.deletionTimestamp;
}

export function renderWorkloadMetrics(world: SimWorld): string {
  const specReplicas: Family = { name: 'kube_deployment_spec_replicas', help: 'Number of desired pods for a deployment.', samples: [] };
  const available: Family = { name: 'kube_deployment_status_replicas_available', help: 'The number of available replicas per deployment.', samples: [] };
  const podReady: Family = { name: 'kube_pod_status_ready', help: 'Describes whether the pod is ready to serve requests.', samples: [] };
  const serviceAvailable: Family = {
    name: 'sim_service_available',
    help: 'Whether the Service has at least one ready endpoint (1) or none (0); the simulator\'s per-Service availability.',
    samples: [],
  };
  for (const cluster of world.clusters.values()) {
    const base = { cluster: cluster.name };
    for (const d of read(cluster, 'deployments')) {
      const labels = { ...base, namespace: d.metadata.namespace ?? 'default', deployment: d.metadata.name };
      specReplicas.samples.push({ labels, value: Number(d.spec?.replicas ?? 1) });
      available.samples.push({ labels, value: Number(d.status?.availableReplicas ?? 0) });
    }
    const pods = read(cluster, 'pods');
    for (const pod of pods) {
      // kube-state-metrics writes one series per condition value, 1 for the pod's and 0 for the others; a pod with no
      // Ready condition yet (just created) has none.
      const status = readyCondition(pod);
      if (!status) continue;
      for (const condition of ['true', 'false', 'unknown'] as const) {
        podReady.samples.push({ labels: { ...base, namespace: pod.metadata.namespace ?? 'default', pod: pod.metadata.name, uid: pod.metadata.uid ?? '', condition }, value: condition === status ? 1 : 0 });
      }
    }
    for (const svc of read(cluster, 'services')) {
      const selector = svc.spec?.selector;
      // A Service without a selector has no managed endpoints to count (its Endpoints are written by hand).
      if (!selector || Object.keys(selector).length === 0) continue;
      const namespace = svc.metadata.namespace ?? 'default';
      const ready = pods.some((pod) => pod.metadata.namespace === namespace && selectorMatches({ matchLabels: selector }, pod.metadata.labels) && servesEndpoints(pod));
      serviceAvailable.samples.push({ labels: { ...base, namespace, service: svc.metadata.name }, value: ready ? 1 : 0 });
    }
  }
  return [specReplicas, available, podReady, serviceAvailable].map(renderFamily).join('');
}
