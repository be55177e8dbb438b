import type { SimStrictness } from '../strictness.js';

/**
 * One page of a list the way AWS serves it: in no promised order (ListUpdates ids come back "in random order",
 * aws/containers-roadmap#1439; no List or Describe API of EKS, EC2 or Auto Scaling documents an order) and in pages behind an opaque token.
 * AWS documents only a maximum per page ("returns up to 100 results"), so a strict simulator answers a small page
 * when the caller sets no limit, exactly `limit` items when it does, and refuses a limit outside the service's
 * range. The token carries the shuffle's seed so one listing walks one permutation from its first page to its last.
 */
export interface PageLimits {
  /** Smallest and largest limit the API accepts, and the number it answers when none is given. */
  min: number;
  max: number;
  default: number;
}

export interface PageRequest {
  limit?: number | string | null;
  token?: string | null;
}

export interface PageErrors {
  badLimit(limit: string): Error;
  badToken(): Error;
}

function permute<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export function servePage<T>(items: T[], request: PageRequest, limits: PageLimits, strictness: SimStrictness, errors: PageErrors): { page: T[]; nextToken?: string } {
  const given = request.limit === undefined || request.limit === null || request.limit === '' ? undefined : Number(request.limit);
  if (given !== undefined && (!Number.isInteger(given) || given < limits.min || given > limits.max)) throw errors.badLimit(String(request.limit));
  const size = given ?? Math.min(limits.default, strictness.defaultPageSize ?? limits.default);
  let seed = Math.floor(Math.random() * 2 ** 32);
  let start = 0;
  if (request.token) {
    const parsed = /^(\d+)\.(\d+)$/.exec(Buffer.from(String(request.token), 'base64url').toString());
    if (!parsed) throw errors.badToken();
    seed = Number(parsed[1]);
    start = Number(parsed[2]);
  }
  const ordered = strictness.shuffleLists ? permute(items, seed) : items;
  const page = ordered.slice(start, start + size);
  const next = start + size < ordered.length ? Buffer.from(`${seed}.${start + size}`).toString('base64url') : undefined;
  return { page, ...(next ? { nextToken: next } : {}) };
}
