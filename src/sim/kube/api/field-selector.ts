import type { KubeObject } from '../../../kube-types/kube-object.js';

/**
 * Field selectors (`spec.nodeName=ip-…`, `status.phase!=Succeeded`, `involvedObject.name=x`): comma-separated
 * `field=value`, `field==value` or `field!=value`. The field is a dotted path into the object; kubectl drain and
 * describe use metadata.name, metadata.namespace, spec.nodeName, status.phase and involvedObject.*.
 */
export interface FieldRequirement {
  field: string;
  equal: boolean;
  value: string;
}

export class FieldSelectorParseError extends Error {}

export function parseFieldSelector(text: string | undefined | null): FieldRequirement[] {
  if (!text || !text.trim()) return [];
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const m = /^([A-Za-z0-9_.\-/]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
      if (!m) throw new FieldSelectorParseError(`invalid selector: '${part}'; can't understand '${part}'`);
      return { field: m[1], equal: m[2] !== '!=', value: m[3].trim() };
    });
}

/** The value of a dotted field path as a string ("" when absent, "true"/"false" for booleans). */
export function fieldValue(object: KubeObject, field: string): string {
  let current: any = object;
  for (const segment of field.split('.')) {
    if (current === undefined || current === null) return '';
    current = current[segment];
  }
  // Booleans the apiserver converts with a default: an uncordoned node has spec.unschedulable=false.
  if (current === undefined || current === null) return field === 'spec.unschedulable' ? 'false' : '';
  return String(current);
}

export function matchesFields(object: KubeObject, requirements: FieldRequirement[]): boolean {
  return requirements.every((r) => (fieldValue(object, r.field) === r.value) === r.equal);
}
