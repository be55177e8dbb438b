/**
 * Names and ids the way Kubernetes makes them: random suffixes from the apimachinery alphabet (no vowels, no
 * look-alike digits), pod-template-hash as fnv32a of the template, SafeEncodeString'd.
 */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

export type RandomSource = () => number; // [0, 1)

/** utilrand.String(n): `orders-5b97745747-zcjn2` ends in one of these. */
export function randomSuffix(random: RandomSource, length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMS[Math.floor(random() * ALPHANUMS.length)];
  return out;
}

/** A version 4 UUID from the injected random source, so a seeded simulator gives the same uids every run. */
export function randomUid(random: RandomSource): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

export function randomHex(random: RandomSource, length: number): string {
  return Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');
}

/** fnv-1a 32-bit over the UTF-8 bytes of text. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** rand.SafeEncodeString: maps each character of the decimal hash onto the alphabet above. */
export function safeEncode(text: string): string {
  return [...text].map((ch) => ALPHANUMS[ch.charCodeAt(0) % ALPHANUMS.length]).join('');
}

/** JSON with object keys sorted, so equal templates hash equally whatever order their fields arrived in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The pod-template-hash label value of a pod template (as the deployment controller computes it). */
export function podTemplateHash(template: unknown, collisionCount = 0): string {
  return safeEncode(String(fnv32a(canonicalJson(template ?? {}) + (collisionCount ? String(collisionCount) : ''))));
}
