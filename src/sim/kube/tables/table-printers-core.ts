import type { KubeObject } from '../../../kube-types/kube-object.js';
import { ageOf } from './human-duration.js';
import { ageColumn, nameColumn, orNone, type TablePrinter } from './table-printer.js';

/**
 * Server-side table printers for core/v1 kinds, ported from kubernetes pkg/printers/internalversion/printers.go
 * so `kubectl get` prints the columns and cell texts of a real cluster.
 */

function nodeRoles(labels: Record<string, string> = {}): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith('node-role.kubernetes.io/')) roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && value) roles.add(value);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

/** STATUS of a node: Ready / NotReady / Unknown, plus SchedulingDisabled when cordoned. */
export function nodeStatusText(node: KubeObject): string {
  const ready = (node.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeAddress(node: KubeObject, type: string): string {
  return orNone((node.status?.addresses ?? []).find((a: any) => a.type === type)?.address);
}

export const nodePrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Status', type: 'string', description: 'The status of the node' },
    { name: 'Roles', type: 'string', description: 'The roles of the node' },
    ageColumn,
    { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.' },
    { name: 'Internal-IP', type: 'string', priority: 1, description: 'List of internal IPs for the node.' },
    { name: 'External-IP', type: 'string', priority: 1, description: 'List of external IPs for the node.' },
    { name: 'OS-Image', type: 'string', priority: 1, description: 'OS Image reported by the node.' },
    { name: 'Kernel-Version', type: 'string', priority: 1, description: 'Kernel Version reported by the node.' },
    { name: 'Container-Runtime', type: 'string', priority: 1, description: 'Container Runtime Version reported by the node.' },
  ],
  cells(node, { now }) {
    const info = node.status?.nodeInfo ?? {};
    return [
      node.metadata.name,
      nodeStatusText(node),
      nodeRoles(node.metadata.labels),
      ageOf(node.metadata.creationTimestamp, now),
      info.kubeletVersion ?? '',
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      info.osImage || '<unknown>',
      info.kernelVersion || '<unknown>',
      info.containerRuntimeVersion || '<unknown>',
    ];
  },
};

/** READY, STATUS and RESTARTS of a pod, following printPod (container states win over the phase). */
export function podSummary(pod: KubeObject, now: number): { ready: string; status: string; restarts: string } {
  const containers: any[] = pod.spec?.containers ?? [];
  let reason: string = pod.status?.reason || pod.status?.phase || 'Pending';
  let restarts = 0;
  let readyCount = 0;
  let lastRestart = 0;
  let hasRunning = false;
  const statuses: any[] = pod.status?.containerStatuses ?? [];
  for (let i = statuses.length - 1; i >= 0; i--) {
    const c = statuses[i];
    restarts += c.restartCount ?? 0;
    const finished = c.lastState?.terminated?.finishedAt;
    if (finished) lastRestart = Math.max(lastRestart, Date.parse(finished));
    if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
    else if (c.state?.terminated?.reason) reason = c.state.terminated.reason;
    else if (c.state?.terminated) reason = `ExitCode:${c.state.terminated.exitCode ?? 0}`;
    else if (c.ready && c.state?.running) {
      hasRunning = true;
      readyCount++;
    }
  }
  if (reason === 'Completed' && hasRunning) {
    reason = (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
  }
  const phase = pod.status?.phase;
  if (pod.metadata.deletionTimestamp && pod.status?.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  const restartsText =
    restarts !== 0 && lastRestart > 0 ? `${restarts} (${ageOf(new Date(lastRestart).toISOString(), now)} ago)` : String(restarts);
  return { ready: `${readyCount}/${containers.length}`, status: reason, restarts: restartsText };
}

export const podPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.' },
    { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.' },
    { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.' },
    ageColumn,
    { name: 'IP', type: 'string', priority: 1, description: 'IP address allocated to the pod.' },
    { name: 'Node', type: 'string', priority: 1, description: 'Name of the node this pod runs on.' },
    { name: 'Nominated Node', type: 'string', priority: 1, description: 'Name of the node nominated by the scheduler.' },
    { name: 'Readiness Gates', type: 'string', priority: 1, description: 'Pod readiness gates.' },
  ],
  cells(pod, { now }) {
    const summary = podSummary(pod, now);
    const gates: any[] = pod.spec?.readinessGates ?? [];
    const gateText = gates.length
      ? `${gates.filter((g) => (pod.status?.conditions ?? []).some((c: any) => c.type === g.conditionType && c.status === 'True')).length}/${gates.length}`
      : '<none>';
    return [
      pod.metadata.name,
      summary.ready,
      summary.status,
      summary.restarts,
      ageOf(pod.metadata.creationTimestamp, now),
      orNone(pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP),
      orNone(pod.spec?.nodeName),
      orNone(pod.status?.nominatedNodeName),
      gateText,
    ];
  },
};

function eventSource(event: KubeObject): string {
  const source = (event.source as any) ?? {};
  const component = source.component || (event.reportingComponent as string) || '';
  const host = source.host || (event.reportingInstance as string) || '';
  return host ? `${component}, ${host}` : component;
}

export const eventPrinter: TablePrinter = {
  columns: [
    { name: 'Last Seen', type: 'string', description: 'The time at which the most recent occurrence of this event was recorded.' },
    { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning), new types could be added in the future.' },
    { name: 'Reason', type: 'string', description: 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.' },
    { name: 'Object', type: 'string', description: 'The object that this event is about.' },
    { name: 'Subobject', type: 'string', priority: 1, description: 'The subobject of the object this event is about.' },
    { name: 'Source', type: 'string', priority: 1, description: 'The component reporting this event.' },
    { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.' },
    { name: 'First Seen', type: 'string', priority: 1, description: 'The time at which the event was first recorded.' },
    { name: 'Count', type: 'integer', priority: 1, description: 'The number of times this event has occurred.' },
    { name: 'Name', type: 'string', priority: 1, format: 'name', description: 'Name of the event.' },
  ],
  cells(event, { now }) {
    const involved = (event.involvedObject as any) ?? {};
    const first = ageOf((event.firstTimestamp as string) || (event.eventTime as string), now);
    const last = event.lastTimestamp ? ageOf(event.lastTimestamp as string, now) : first;
    const kind = String(involved.kind ?? '').toLowerCase();
    return [
      last,
      event.type ?? '',
      event.reason ?? '',
      involved.name ? `${kind}/${involved.name}` : kind,
      involved.fieldPath ?? '',
      eventSource(event),
      String(event.message ?? '').trim(),
      first,
      (event.count as number) || 1,
      event.metadata.name,
    ];
  },
};

export const namespacePrinter: TablePrinter = {
  columns: [nameColumn, { name: 'Status', type: 'string', description: 'The status of the namespace' }, ageColumn],
  cells: (ns, { now }) => [ns.metadata.name, ns.status?.phase ?? 'Active', ageOf(ns.metadata.creationTimestamp, now)],
};

const accessModeShort: Record<string, string> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

/** VolumeAttributesClass joined the PVC columns in Kubernetes 1.29. */
export function pvcPrinter(minor: number): TablePrinter {
  const withVac = minor >= 29;
  return {
    columns: [
      nameColumn,
      { name: 'Status', type: 'string' },
      { name: 'Volume', type: 'string' },
      { name: 'Capacity', type: 'string' },
      { name: 'Access Modes', type: 'string' },
      { name: 'StorageClass', type: 'string' },
      ...(withVac ? [{ name: 'VolumeAttributesClass', type: 'string' as const }] : []),
      ageColumn,
      { name: 'VolumeMode', type: 'string', priority: 1 },
    ],
    cells(pvc, { now }) {
      const bound = pvc.status?.phase === 'Bound';
      const modes = ((bound ? pvc.status?.accessModes : pvc.spec?.accessModes) ?? []).map((m: string) => accessModeShort[m] ?? m);
      return [
        pvc.metadata.name,
        pvc.status?.phase ?? 'Pending',
        pvc.spec?.volumeName ?? '',
        bound ? (pvc.status?.capacity?.storage ?? '') : '',
        modes.join(','),
        pvc.spec?.storageClassName ?? '',
        ...(withVac ? [pvc.spec?.volumeAttributesClassName || '<unset>'] : []),
        ageOf(pvc.metadata.creationTimestamp, now),
        pvc.spec?.volumeMode ?? 'Filesystem',
      ];
    },
  };
}

export const servicePrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Type', type: 'string' },
    { name: 'Cluster-IP', type: 'string' },
    { name: 'External-IP', type: 'string' },
    { name: 'Port(s)', type: 'string' },
    ageColumn,
    { name: 'Selector', type: 'string', priority: 1 },
  ],
  cells(svc, { now }) {
    const type = svc.spec?.type ?? 'ClusterIP';
    const ingress: any[] = svc.status?.loadBalancer?.ingress ?? [];
    const external =
      type === 'LoadBalancer'
        ? ingress.map((i) => i.hostname || i.ip).join(',') || '<pending>'
        : (svc.spec?.externalIPs ?? []).join(',') || '<none>';
    const ports = (svc.spec?.ports ?? [])
      .map((p: any) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`)
      .join(',');
    const selector = Object.entries<string>(svc.spec?.selector ?? {})
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    return [
      svc.metadata.name,
      type,
      svc.spec?.clusterIP ?? '<none>',
      external,
      ports || '<none>',
      ageOf(svc.metadata.creationTimestamp, now),
      selector || '<none>',
    ];
  },
};

/** Kinds without a dedicated printer get NAME and AGE, as kubectl shows for them. */
export const defaultPrinter: TablePrinter = {
  columns: [nameColumn, ageColumn],
  cells: (object, { now }) => [object.metadata.name, ageOf(object.metadata.creationTimestamp, now)],
};
