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

/**
 * The field labels a kind's lists and watches select on, by its field label conversion function in the apiserver:
 * anything else is refused 400 BadRequest before a single object is read. Sources: the list of supported fields,
 * https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors/#list-of-supported-fields, and
 * kubernetes/kubernetes pkg/apis/core/v1/conversion.go (Pod, with spec.host read as spec.nodeName for old clients;
 * Node, whose conversion has no metadata.namespace; Event, whose `source` is source.component; Namespace; Secret),
 * each answering "field label not supported: <label>", and ReplicaSet's status.replicas (apps/v1), in that list too.
 */
const CONVERTED_FIELDS: Record<string, Record<string, string>> = {
  Pod: fields('metadata.name', 'metadata.namespace', 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.podIPs', 'status.nominatedNodeName', ['spec.host', 'spec.nodeName']),
  Node: fields('metadata.name', 'spec.unschedulable'),
  Event: fields(
    'metadata.name', 'metadata.namespace', 'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion',
    'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', ['source', 'source.component'], 'type',
  ),
  Namespace: fields('metadata.name', 'status.phase'),
  Secret: fields('metadata.name', 'metadata.namespace', 'type'),
  ReplicaSet: fields('metadata.name', 'metadata.namespace', 'status.replicas'),
};

/** Groups served by CustomResourceDefinitions here (Karpenter's, the VPC CNI's ENIConfig). */
const CUSTOM_GROUPS = new Set(['karpenter.sh', 'karpenter.k8s.aws', 'crd.k8s.amazonaws.com']);

function fields(...labels: Array<string | [string, string]>): Record<string, string> {
  return Object.fromEntries(labels.map((label) => (typeof label === 'string' ? [label, label] : label)));
}

const NAME_ONLY = fields('metadata.name');
const NAME_AND_NAMESPACE = fields('metadata.name', 'metadata.namespace');

/**
 * The requirements of a fieldSelector on a kind, each label resolved to the path it selects on; a label the kind does
 * not support throws FieldSelectorParseError with the apiserver's words. Other built-in kinds take
 * apimachinery's DefaultMetaV1FieldSelectorConversion (metadata.name and metadata.namespace); custom resources
 * apiextensions-apiserver's crConverter (metadata.name, and metadata.namespace when namespaced).
 */
export function fieldRequirementsFor(type: { kind: string; group: string; namespaced: boolean }, text: string | undefined | null): FieldRequirement[] {
  const requirements = parseFieldSelector(text);
  if (requirements.length === 0) return requirements;
  const custom = CUSTOM_GROUPS.has(type.group);
  const converted = CONVERTED_FIELDS[type.kind];
  const supported = converted ?? (custom && !type.namespaced ? NAME_ONLY : NAME_AND_NAMESPACE);
  return requirements.map((requirement) => {
    if (Object.hasOwn(supported, requirement.field)) return { ...requirement, field: supported[requirement.field] };
    throw new FieldSelectorParseError(
      converted || custom
        ? `field label not supported: ${requirement.field}`
        : `"${requirement.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
    );
  });
}

export function matchesFields(object: KubeObject, requirements: FieldRequirement[]): boolean {
  return requirements.every((r) => (fieldValue(object, r.field) === r.value) === r.equal);
}
