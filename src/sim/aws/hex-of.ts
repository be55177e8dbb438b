import { createHash } from 'node:crypto';

/** A stable hex string derived from a name, so the same scenario always yields the same AWS ids. */
export function hexOf(seed: string, length: number): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, length);
}
