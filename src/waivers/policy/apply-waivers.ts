import { isInForce, waiverMatches, type Waiver } from '../model/waiver-match.js';
import type { Finding } from '../../ports/finding.js';

/**
 * Marks the findings that a waiver in force covers: they stay in the plan (shown as waived, with who, why and
 * until when) and stop blocking. A waiver past its expiry, pending, rejected or revoked waives nothing, so the
 * finding blocks again as soon as the clock passes `expiresAt`. Pure; `now` is the snapshot's read time.
 */
export function applyWaivers(findings: readonly Finding[], waivers: readonly Waiver[], now: number): Finding[] {
  const inForce = waivers.filter((waiver) => isInForce(waiver, now));
  if (inForce.length === 0) return [...findings];
  return findings.map((finding) => {
    // The waiver that lasts longest wins when several cover one finding.
    const waiver = inForce.filter((candidate) => waiverMatches(candidate, finding)).sort((a, b) => b.expiresAt - a.expiresAt)[0];
    if (!waiver) return finding;
    return {
      ...finding,
      waived: { by: waiver.approvedBy ?? waiver.requestedBy, reason: waiver.reason, until: new Date(waiver.expiresAt).toISOString(), waiverId: waiver.id },
    };
  });
}

