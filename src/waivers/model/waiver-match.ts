import picomatch from 'picomatch';

import type { Waiver } from './waiver.js';

/** What a waiver may be (src/waivers/model/waiver.ts) and whether one covers a finding now. */
export type { Waiver, WaiverState, WaivedBy } from './waiver.js';

export const MAX_WAIVER_DAYS = 90;
export const MIN_WAIVER_REASON = 10;

export function resourceGlobMatches(glob: string, resource: string): boolean {
  // Resources such as "subnet/subnet-0ab (us-west-2a, 40 free)" hold glob syntax themselves: equal text always matches.
  return glob === resource || picomatch.isMatch(resource, glob, { dot: true });
}

export function isInForce(waiver: Waiver, now: number): boolean {
  return waiver.state === 'active' && now < waiver.expiresAt;
}

export function waiverMatches(waiver: Pick<Waiver, 'code' | 'resource'>, finding: { code: string; resources: readonly string[] }): boolean {
  return waiver.code === finding.code && finding.resources.some((resource) => resourceGlobMatches(waiver.resource, resource));
}
