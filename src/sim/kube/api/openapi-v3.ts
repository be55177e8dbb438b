import { minorOf, RESOURCES, servedVersions, type ResourceType } from '../objects/resource-registry.js';

/**
 * Just enough OpenAPI v3 for `kubectl apply` and `kubectl create` with default validation: kubectl 1.32 asks
 * whether each kind's PATCH accepts the fieldValidation query parameter and, if so, leaves validation to the
 * server. No schemas are published, so kubectl falls back to its built-in patch strategies (strategic merge for
 * Kubernetes kinds, merge patch for Karpenter's) exactly as it does against a real cluster without them.
 */
export function openApiIndex(prefix: string, gitVersion: string): Record<string, unknown> {
  const minor = minorOf(gitVersion);
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const type of RESOURCES) {
    for (const version of servedVersions(type, minor)) {
      const key = type.group ? `apis/${type.group}/${version}` : `api/${version}`;
      paths[key] = { serverRelativeURL: `${prefix}/openapi/v3/${key}?hash=${gitVersion.replace(/[^A-Za-z0-9]/g, '').toUpperCase()}` };
    }
  }
  return { paths };
}

function itemPath(type: ResourceType, version: string): string {
  const base = type.group ? `/apis/${type.group}/${version}` : `/api/${version}`;
  return type.namespaced ? `${base}/namespaces/{namespace}/${type.plural}/{name}` : `${base}/${type.plural}/{name}`;
}

export function openApiGroupVersion(group: string, version: string, gitVersion: string): Record<string, unknown> | undefined {
  const minor = minorOf(gitVersion);
  const types = RESOURCES.filter((t) => t.group === group && servedVersions(t, minor).includes(version));
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const type of types) {
    const gvk = { group: type.group, version, kind: type.kind };
    paths[itemPath(type, version)] = {
      patch: {
        description: `partially update the specified ${type.kind}`,
        operationId: `patch${type.kind}`,
        parameters: [
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } },
        ],
        responses: { '200': { description: 'OK' }, '201': { description: 'Created' } },
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': gvk,
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: gitVersion },
    paths,
    components: { schemas: {} },
  };
}
