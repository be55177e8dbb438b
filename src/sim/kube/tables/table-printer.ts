import type { KubeObject } from '../../../kube-types/kube-object.js';

/**
 * One column of a meta.k8s.io/v1 Table. Priority 1 columns are the extra ones `kubectl -o wide` shows; the
 * apiserver always sends them (its printers run with Wide: true) and kubectl hides them otherwise.
 */
export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  priority?: number;
  description?: string;
}

/** What a printer may know besides the object: the simulator's clock and the apiserver's minor version. */
export interface PrintContext {
  now: number;
  minor: number;
}

export interface TablePrinter {
  columns: TableColumn[];
  /** Cells in column order, as the apiserver's printers compute them. */
  cells(object: KubeObject, context: PrintContext): unknown[];
}

export const nameColumn: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
};

export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

/** `<none>` is how the printers show an empty value. */
export function orNone(value: unknown): string {
  return value === undefined || value === null || value === '' ? '<none>' : String(value);
}

/** The Containers and Images cells of workload printers (names and images joined with commas). */
export function containerCells(podSpec: any): [string, string] {
  const containers: any[] = podSpec?.containers ?? [];
  return [containers.map((c) => c.name).join(','), containers.map((c) => c.image).join(',')];
}

/** A label selector as labels.Selector.String() renders it: requirements sorted by key. */
export function selectorString(selector: any): string {
  if (!selector) return '<none>';
  const parts: Array<[string, string]> = [];
  for (const [key, value] of Object.entries<string>(selector.matchLabels ?? {})) parts.push([key, `${key}=${value}`]);
  for (const expression of selector.matchExpressions ?? []) {
    const key = expression.key;
    const values = [...(expression.values ?? [])].sort().join(',');
    const op = expression.operator;
    const text =
      op === 'In' ? `${key} in (${values})` : op === 'NotIn' ? `${key} notin (${values})` : op === 'Exists' ? key : `!${key}`;
    parts.push([key, text]);
  }
  if (parts.length === 0) return '<none>';
  return parts
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map((p) => p[1])
    .join(',');
}
