import { findResource, minorOf, resourceType, type ResourceType } from '../objects/resource-registry.js';

/**
 * Where a request under /k8s/<cluster> points: /api/v1/…, /apis/{group}/{version}/…, optionally through the
 * legacy /watch/ prefix, then [namespaces/{ns}/]{plural}[/{name}[/{subresource}]].
 */
export interface ResourcePath {
  type: ResourceType;
  group: string;
  version: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** The legacy /api/v1/watch/… form. */
  watchPrefix: boolean;
}

export function parseResourcePath(pathname: string, gitVersion: string): ResourcePath | undefined {
  const segments = pathname.split('/').filter((s) => s.length > 0).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    group = '';
    version = segments[1];
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1];
    version = segments[2];
    rest = segments.slice(3);
  } else return undefined;

  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && resourceType(rest[2])?.namespaced) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  const type = findResource(group, version, rest[0], minorOf(gitVersion));
  if (!type) return undefined;
  // A namespaced kind by name needs its namespace in the path.
  if (type.namespaced && namespace === undefined && rest.length > 1) return undefined;
  if (!type.namespaced && namespace !== undefined) return undefined;
  const subresource = rest[2];
  if (subresource && !type.subresources.some((s) => s.name === subresource)) return undefined;
  return { type, group, version, namespace, name: rest[1], subresource, watchPrefix };
}
