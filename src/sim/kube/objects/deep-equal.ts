/** Structural equality of JSON values (key order ignored), used to skip no-op writes as the apiserver does. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((item, i) => deepEqual(item, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const aKeys = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bKeys = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return aKeys.length === bKeys.length && aKeys.every((k) => deepEqual(ao[k], bo[k]));
}

/** A deep copy of a JSON value: the store never hands out the objects it keeps. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}

/** Freezes a JSON value in place, all the way down: what the store keeps can never change behind its back. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}
