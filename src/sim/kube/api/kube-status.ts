import type { ResourceType } from '../objects/resource-registry.js';

/** The apiserver's metav1.Status, the body of every error (and of a successful eviction). */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: Record<string, unknown>;
  code: number;
}

export function kubeStatus(code: number, reason: string, message: string, details?: Record<string, unknown>): KubeStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: code < 400 ? 'Success' : 'Failure',
    ...(message ? { message } : {}),
    ...(reason ? { reason } : {}),
    ...(details ? { details } : {}),
    code,
  };
}

function qualified(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}

function detailsOf(type: ResourceType, name: string): Record<string, unknown> {
  return { name, ...(type.group ? { group: type.group } : {}), kind: type.plural };
}

export const notFound = (type: ResourceType, name: string) =>
  kubeStatus(404, 'NotFound', `${qualified(type)} "${name}" not found`, detailsOf(type, name));

export const alreadyExists = (type: ResourceType, name: string) =>
  kubeStatus(409, 'AlreadyExists', `${qualified(type)} "${name}" already exists`, detailsOf(type, name));

export const conflict = (type: ResourceType, name: string) =>
  kubeStatus(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    detailsOf(type, name),
  );

export const invalid = (type: ResourceType, name: string, field: string, message: string) => invalidCauses(type, name, [{ reason: 'FieldValueInvalid', field, message }]);

/**
 * 422 Invalid listing every cause (apimachinery errors.NewInvalid): one cause reads `<kind> "<name>" is invalid:
 * <field>: <message>`, several are joined in brackets `is invalid: [<field>: <message>, …]`.
 */
export function invalidCauses(type: ResourceType, name: string, causes: Array<{ reason: string; field: string; message: string }>): KubeStatus {
  const each = causes.map((c) => `${c.field}: ${c.message}`);
  const text = each.length === 1 ? each[0] : `[${each.join(', ')}]`;
  return kubeStatus(422, 'Invalid', `${type.group ? `${type.kind}.${type.group}` : type.kind} "${name}" is invalid: ${text}`, {
    ...detailsOf(type, name),
    causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })),
  });
}

export const badRequest = (message: string) => kubeStatus(400, 'BadRequest', message);

export const expired = (message: string) => kubeStatus(410, 'Expired', message);

export const resourceNotFound = () => kubeStatus(404, 'NotFound', 'the server could not find the requested resource', {});

export const methodNotAllowed = (method: string) =>
  kubeStatus(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`, {});
