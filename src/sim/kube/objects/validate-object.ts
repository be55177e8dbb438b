import type { KubeObject } from '../../../kube-types/kube-object.js';
import { validateEc2NodeClass, validateNodePool, type FieldCause } from './validate-karpenter.js';

/**
 * The few validation rules of the apiserver (and of Karpenter's CRD schemas) that a user of this product can
 * trip over: object names, negative replicas, a PDB with both minAvailable and maxUnavailable; Karpenter's CRD
 * rules are in validate-karpenter.ts. Answered as 422 Invalid with the field path, as the apiserver does.
 */
export interface FieldViolation {
  field: string;
  message: string;
}

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Every cause the apiserver would list for `object` (empty: valid). Karpenter's objects are checked against their
 * CRD schema unless `customResources` is false (the simulator's `unvalidated-custom-resources` relaxation).
 */
export function validationCauses(resource: string, object: KubeObject, options: { customResources?: boolean } = {}): FieldCause[] {
  const violation = validateObject(resource, object);
  if (violation) return [{ reason: 'FieldValueInvalid', ...violation }];
  if (options.customResources === false) return [];
  if (resource === 'nodepools') return validateNodePool(object);
  if (resource === 'ec2nodeclasses') return validateEc2NodeClass(object);
  return [];
}

export function validateObject(resource: string, object: KubeObject): FieldViolation | undefined {
  const name = object.metadata?.name ?? '';
  if (name && (!SUBDOMAIN.test(name) || name.length > 253)) {
    return {
      field: 'metadata.name',
      message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    };
  }
  const replicas = object.spec?.replicas;
  if (['deployments', 'statefulsets', 'replicasets'].includes(resource) && replicas !== undefined && (!Number.isInteger(replicas) || replicas < 0)) {
    return { field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` };
  }
  if (resource === 'poddisruptionbudgets') {
    const { minAvailable, maxUnavailable } = object.spec ?? {};
    if (minAvailable !== undefined && minAvailable !== null && maxUnavailable !== undefined && maxUnavailable !== null) {
      return { field: 'spec', message: `Invalid value: ${JSON.stringify(object.spec)}: minAvailable and maxUnavailable cannot be both set` };
    }
  }
  return undefined;
}
