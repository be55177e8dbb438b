import type { KubeObject } from '../../../kube-types/kube-object.js';
import { ageOf } from './human-duration.js';
import { ageColumn, containerCells, nameColumn, selectorString, type TablePrinter } from './table-printer.js';

/** Server-side table printers for apps/v1, policy/v1 and autoscaling kinds (ported from printers.go). */

const containersColumn = { name: 'Containers', type: 'string' as const, priority: 1, description: 'Names of each container in the template.' };
const imagesColumn = { name: 'Images', type: 'string' as const, priority: 1, description: 'Images referenced by each container in the template.' };
const selectorColumn = { name: 'Selector', type: 'string' as const, priority: 1, description: 'Label selector for pods.' };

export const deploymentPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state' },
    { name: 'Up-to-date', type: 'integer', description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.' },
    { name: 'Available', type: 'integer', description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.' },
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(d, { now }) {
    const [containers, images] = containerCells(d.spec?.template?.spec);
    return [
      d.metadata.name,
      `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`,
      d.status?.updatedReplicas ?? 0,
      d.status?.availableReplicas ?? 0,
      ageOf(d.metadata.creationTimestamp, now),
      containers,
      images,
      selectorString(d.spec?.selector),
    ];
  },
};

export const replicaSetPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Desired', type: 'integer', description: 'Number of desired pods.' },
    { name: 'Current', type: 'integer', description: 'Number of actual replicas.' },
    { name: 'Ready', type: 'integer', description: 'The number of ready replicas for this replica set.' },
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(rs, { now }) {
    const [containers, images] = containerCells(rs.spec?.template?.spec);
    return [
      rs.metadata.name,
      rs.spec?.replicas ?? 1,
      rs.status?.replicas ?? 0,
      rs.status?.readyReplicas ?? 0,
      ageOf(rs.metadata.creationTimestamp, now),
      containers,
      images,
      selectorString(rs.spec?.selector),
    ];
  },
};

export const statefulSetPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state' },
    ageColumn,
    containersColumn,
    imagesColumn,
  ],
  cells(s, { now }) {
    const [containers, images] = containerCells(s.spec?.template?.spec);
    return [s.metadata.name, `${s.status?.readyReplicas ?? 0}/${s.spec?.replicas ?? 1}`, ageOf(s.metadata.creationTimestamp, now), containers, images];
  },
};

export const daemonSetPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Desired', type: 'integer' },
    { name: 'Current', type: 'integer' },
    { name: 'Ready', type: 'integer' },
    { name: 'Up-to-date', type: 'integer' },
    { name: 'Available', type: 'integer' },
    { name: 'Node Selector', type: 'string' },
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(ds, { now }) {
    const [containers, images] = containerCells(ds.spec?.template?.spec);
    const nodeSelector = Object.entries<string>(ds.spec?.template?.spec?.nodeSelector ?? {})
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const s = ds.status ?? {};
    return [
      ds.metadata.name,
      s.desiredNumberScheduled ?? 0,
      s.currentNumberScheduled ?? 0,
      s.numberReady ?? 0,
      s.updatedNumberScheduled ?? 0,
      s.numberAvailable ?? 0,
      nodeSelector || '<none>',
      ageOf(ds.metadata.creationTimestamp, now),
      containers,
      images,
      selectorString(ds.spec?.selector),
    ];
  },
};

export const pdbPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available.' },
    { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable.' },
    { name: 'Allowed Disruptions', type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.' },
    ageColumn,
  ],
  cells(pdb, { now }) {
    const text = (v: unknown) => (v === undefined || v === null ? 'N/A' : String(v));
    return [
      pdb.metadata.name,
      text(pdb.spec?.minAvailable),
      text(pdb.spec?.maxUnavailable),
      pdb.status?.disruptionsAllowed ?? 0,
      ageOf(pdb.metadata.creationTimestamp, now),
    ];
  },
};

function hpaTargets(hpa: KubeObject): string {
  const metrics: any[] = hpa.spec?.metrics ?? [];
  if (metrics.length === 0 && hpa.spec?.targetCPUUtilizationPercentage !== undefined) {
    return `cpu: <unknown>/${hpa.spec.targetCPUUtilizationPercentage}%`;
  }
  if (metrics.length === 0) return '<none>';
  const current: any[] = hpa.status?.currentMetrics ?? [];
  return metrics
    .map((m, i) => {
      if (m.type !== 'Resource' || !m.resource) return `<unknown>/<unknown>`;
      const target = m.resource.target ?? {};
      const now = current[i]?.resource?.current;
      if (target.type === 'Utilization' || target.averageUtilization !== undefined) {
        const value = now?.averageUtilization !== undefined ? `${now.averageUtilization}%` : '<unknown>';
        return `${m.resource.name}: ${value}/${target.averageUtilization}%`;
      }
      return `${m.resource.name}: ${now?.averageValue ?? '<unknown>'}/${target.averageValue ?? target.value ?? '<unknown>'}`;
    })
    .join(', ');
}

export const hpaPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Reference', type: 'string' },
    { name: 'Targets', type: 'string' },
    { name: 'MinPods', type: 'string' },
    { name: 'MaxPods', type: 'integer' },
    { name: 'Replicas', type: 'integer' },
    ageColumn,
  ],
  cells(hpa, { now }) {
    const ref = hpa.spec?.scaleTargetRef ?? {};
    return [
      hpa.metadata.name,
      `${ref.kind}/${ref.name}`,
      hpaTargets(hpa),
      hpa.spec?.minReplicas === undefined ? '<unset>' : String(hpa.spec.minReplicas),
      hpa.spec?.maxReplicas ?? 0,
      hpa.status?.currentReplicas ?? 0,
      ageOf(hpa.metadata.creationTimestamp, now),
    ];
  },
};
