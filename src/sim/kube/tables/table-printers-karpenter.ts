import type { KubeObject } from '../../../kube-types/kube-object.js';
import { ageOf } from './human-duration.js';
import { nameColumn, type TableColumn, type TablePrinter } from './table-printer.js';

/**
 * Karpenter's CRDs print through their additionalPrinterColumns (karpenter v1.x charts). The apiserver leaves a
 * cell empty (null) when the JSONPath finds nothing, and formats `date` columns as ages.
 */

function conditionStatus(object: KubeObject, type: string): string | null {
  return (object.status?.conditions ?? []).find((c: any) => c.type === type)?.status ?? null;
}

const crdAge: TableColumn = { name: 'Age', type: 'date' };

export const nodePoolPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'NodeClass', type: 'string' },
    { name: 'Nodes', type: 'string' },
    { name: 'Ready', type: 'string' },
    crdAge,
    { name: 'Weight', type: 'integer', priority: 1 },
    { name: 'CPU', type: 'string', priority: 1 },
    { name: 'Memory', type: 'string', priority: 1 },
  ],
  cells(pool, { now }) {
    const resources = pool.status?.resources ?? {};
    return [
      pool.metadata.name,
      pool.spec?.template?.spec?.nodeClassRef?.name ?? null,
      resources.nodes ?? null,
      conditionStatus(pool, 'Ready'),
      ageOf(pool.metadata.creationTimestamp, now),
      pool.spec?.weight ?? null,
      resources.cpu ?? null,
      resources.memory ?? null,
    ];
  },
};

export const nodeClaimPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Type', type: 'string' },
    { name: 'Capacity', type: 'string' },
    { name: 'Zone', type: 'string' },
    { name: 'Node', type: 'string' },
    { name: 'Ready', type: 'string' },
    crdAge,
    { name: 'ImageID', type: 'string', priority: 1 },
    { name: 'ID', type: 'string', priority: 1 },
    { name: 'NodePool', type: 'string', priority: 1 },
    { name: 'NodeClass', type: 'string', priority: 1 },
    { name: 'Drifted', type: 'string', priority: 1 },
  ],
  cells(claim, { now }) {
    const labels = claim.metadata.labels ?? {};
    return [
      claim.metadata.name,
      labels['node.kubernetes.io/instance-type'] ?? null,
      labels['karpenter.sh/capacity-type'] ?? null,
      labels['topology.kubernetes.io/zone'] ?? null,
      claim.status?.nodeName ?? null,
      conditionStatus(claim, 'Ready'),
      ageOf(claim.metadata.creationTimestamp, now),
      claim.status?.imageID ?? null,
      claim.status?.providerID ?? null,
      labels['karpenter.sh/nodepool'] ?? null,
      claim.spec?.nodeClassRef?.name ?? null,
      conditionStatus(claim, 'Drifted'),
    ];
  },
};

export const ec2NodeClassPrinter: TablePrinter = {
  columns: [nameColumn, { name: 'Ready', type: 'string' }, crdAge, { name: 'Role', type: 'string', priority: 1 }],
  cells: (nc, { now }) => [nc.metadata.name, conditionStatus(nc, 'Ready'), ageOf(nc.metadata.creationTimestamp, now), nc.spec?.role ?? null],
};
