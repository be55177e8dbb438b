import { deepEqual } from './deep-equal.js';

/**
 * The three patch types the apiserver accepts: JSON merge patch (RFC 7386), strategic merge patch (the simple
 * cases: maps merge, lists with a known merge key merge by it, other lists replace, `$patch`, `$retainKeys`,
 * `$deleteFromPrimitiveList`, `$setElementOrder` directives) and JSON patch (RFC 6902). kubectl cordon, scale,
 * rollout restart, label and annotate send strategic or merge patches; client-node defaults to JSON patch.
 */
export type PatchKind = 'merge' | 'strategic' | 'json';

export class PatchError extends Error {}

export function patchKindOf(contentType: string | undefined): PatchKind | undefined {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/merge-patch+json') return 'merge';
  if (type === 'application/strategic-merge-patch+json') return 'strategic';
  if (type === 'application/json-patch+json') return 'json';
  // Server-side apply is answered as a merge of the applied configuration: close enough for the fields we serve.
  if (type === 'application/apply-patch+yaml') return 'merge';
  return undefined;
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, any> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Merge keys of list fields, from the Kubernetes API types' patchMergeKey tags. */
function mergeKeyFor(field: string, items: unknown[]): string | undefined {
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'volumes':
    case 'env':
    case 'imagePullSecrets':
    case 'volumeDevices':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'conditions':
    case 'addresses':
      return 'type';
    case 'ownerReferences':
      return 'uid';
    case 'hostAliases':
      return 'ip';
    case 'topologySpreadConstraints':
      return 'topologyKey';
    case 'ports':
      return items.some((i) => isObject(i) && 'containerPort' in i) ? 'containerPort' : 'port';
    default:
      return undefined;
  }
}

const PRIMITIVE_MERGE_LISTS = new Set(['finalizers']);

function strategicList(field: string, target: unknown, patch: unknown[]): unknown[] {
  const current = Array.isArray(target) ? target : [];
  if (PRIMITIVE_MERGE_LISTS.has(field)) return [...current, ...patch.filter((p) => !current.includes(p))];
  const key = mergeKeyFor(field, [...current, ...patch]);
  if (!key || !patch.every(isObject)) return patch.filter((p) => !(isObject(p) && p.$patch === 'delete'));
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) return patch.filter((p) => !(isObject(p) && '$patch' in p));
  const result = current.map((item) => (isObject(item) ? { ...item } : item));
  for (const element of patch as Array<Record<string, any>>) {
    const index = result.findIndex((item) => isObject(item) && item[key] === element[key]);
    if (element.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) result[index] = strategicMerge(result[index], element);
    else result.push(strategicMerge(undefined, element));
  }
  return result;
}

export function strategicMerge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  if (patch.$patch === 'delete') return undefined;
  if (patch.$patch === 'replace') {
    const { $patch: _directive, ...rest } = patch;
    return rest;
  }
  let result: Record<string, any> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key.startsWith('$setElementOrder/')) continue;
    if (key === '$retainKeys') continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(result[field])) result[field] = result[field].filter((v: unknown) => !(value as unknown[]).includes(v));
      continue;
    }
    if (value === null) delete result[key];
    else if (Array.isArray(value)) result[key] = strategicList(key, result[key], value);
    else {
      const merged = strategicMerge(result[key], value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set<string>(patch.$retainKeys);
    result = Object.fromEntries(Object.entries(result).filter(([k]) => keep.has(k)));
  }
  return result;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`invalid JSON pointer "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: any, tokens: string[], op: string): { parent: any; last: string } {
  let current = doc;
  for (const token of tokens.slice(0, -1)) {
    current = Array.isArray(current) ? current[Number(token)] : current?.[token];
    if (current === undefined || current === null || typeof current !== 'object') {
      throw new PatchError(`${op} operation does not apply: doc is missing path: /${tokens.join('/')}`);
    }
  }
  return { parent: current, last: tokens[tokens.length - 1] };
}

function getAt(doc: any, tokens: string[]): unknown {
  let current = doc;
  for (const token of tokens) current = Array.isArray(current) ? current[Number(token)] : current?.[token];
  return current;
}

export function jsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw new PatchError('json patch must be an array of operations');
  let doc: any = structuredClone(document);
  for (const op of operations as Array<Record<string, any>>) {
    const tokens = pointer(String(op.path ?? ''));
    const put = (value: unknown, replace: boolean) => {
      if (tokens.length === 0) {
        doc = value;
        return;
      }
      const { parent, last } = parentOf(doc, tokens, op.op);
      if (Array.isArray(parent)) {
        const index = last === '-' ? parent.length : Number(last);
        if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new PatchError(`${op.op} operation does not apply: index ${last} out of range`);
        if (replace) parent[index] = value;
        else parent.splice(index, 0, value);
      } else {
        if (replace && !(last in parent)) throw new PatchError(`replace operation does not apply: doc is missing key: ${op.path}`);
        parent[last] = value;
      }
    };
    const take = (path: string): unknown => {
      const t = pointer(path);
      const { parent, last } = parentOf(doc, t, op.op);
      const value = Array.isArray(parent) ? parent[Number(last)] : parent[last];
      if (value === undefined) throw new PatchError(`${op.op} operation does not apply: doc is missing path: ${path}`);
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      return value;
    };
    switch (op.op) {
      case 'add':
        put(structuredClone(op.value), false);
        break;
      case 'replace':
        put(structuredClone(op.value), true);
        break;
      case 'remove':
        take(String(op.path));
        break;
      case 'move':
        put(take(String(op.from)), false);
        break;
      case 'copy':
        put(structuredClone(getAt(doc, pointer(String(op.from)))), false);
        break;
      case 'test':
        if (!deepEqual(getAt(doc, tokens), op.value)) {
          throw new PatchError(`testing value ${op.path} failed: test failed`);
        }
        break;
      default:
        throw new PatchError(`Unexpected kind: ${String(op.op)}`);
    }
  }
  return doc;
}

export function applyPatch(kind: PatchKind, document: unknown, patch: unknown): unknown {
  if (kind === 'json') return jsonPatch(document, patch);
  if (!isObject(patch)) throw new PatchError('patch body must be a JSON object');
  return kind === 'merge' ? mergePatch(document, patch) : strategicMerge(document, patch);
}
