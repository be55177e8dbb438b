import { createHash } from 'node:crypto';

/**
 * The clientRequestToken of an EKS call (at most 64 characters here). EKS answers a call whose token it has seen
 * with what the first call started, so a retried call whose answer was lost gets its own update back — and a new
 * request (the next attempt after Force or a remedy) must carry a new token. Cutting a long token at 64 characters
 * dropped the attempt at its end (a 35-character node-group name is enough), so every Force got the failed update
 * of the first attempt back (issue 23); a token too long is the job id and a hash of all its parts instead.
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupVersion.html (clientRequestToken)
 */
export function requestToken(...parts: Array<string | number>): string {
  const joined = parts.join('-');
  if (joined.length <= 64) return joined;
  return `${String(parts[0]).slice(0, 23)}-${createHash('sha256').update(joined).digest('hex').slice(0, 40)}`;
}
