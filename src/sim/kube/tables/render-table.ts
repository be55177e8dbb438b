import type { KubeObject } from '../../../kube-types/kube-object.js';
import { printerFor, type ResourceType } from '../objects/resource-registry.js';

/**
 * meta.k8s.io/v1 Tables: what `kubectl get` asks for (Accept: application/json;as=Table;v=v1;g=meta.k8s.io) and
 * prints as columns. Rows carry the object's metadata (PartialObjectMetadata) so kubectl can add NAMESPACE,
 * -L label columns and --show-labels; includeObject=Object sends the whole object (kubectl --sort-by).
 */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Whether an Accept header asks for a Table. */
export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept
    .split(',')
    .map((part) => part.trim())
    .some((part) => {
      const params = part.split(';').map((p) => p.trim());
      return params.includes('as=Table') && params.includes('g=meta.k8s.io') && (params.includes('v=v1') || params.includes('v=v1beta1'));
    });
}

function rowObject(object: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return object;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

export function renderTable(
  type: ResourceType,
  objects: KubeObject[],
  context: { now: number; minor: number; resourceVersion?: string; continueToken?: string; include?: IncludeObject; noHeaders?: boolean },
): Record<string, unknown> {
  const printer = printerFor(type, context.minor);
  const include = context.include ?? 'Metadata';
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {
      ...(context.resourceVersion ? { resourceVersion: context.resourceVersion } : {}),
      ...(context.continueToken ? { continue: context.continueToken } : {}),
    },
    columnDefinitions: context.noHeaders
      ? null
      : printer.columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
    rows: objects.map((object) => {
      const embedded = rowObject(object, include);
      return { cells: printer.cells(object, context), ...(embedded ? { object: embedded } : {}) };
    }),
  };
}
