import type { WebClient } from '@slack/web-api';
import type { UsergroupResolver } from '../ports/bot-deps.js';
import type { Clock } from '../ports/clock.js';

/**
 * Members of Slack user groups (S…) for requesters/approvers lists, through `usergroups.users.list` (Tier 2: about
 * 20 calls a minute, so results are cached for ttlMs). Concurrent look-ups of one group share a single call. When
 * Slack fails and an expired entry exists, the expired members are used rather than refusing everyone; with
 * nothing cached the error propagates (the caller treats the group as empty and logs why).
 */
export function createUsergroupResolver(client: WebClient, clock: Clock, ttlMs: number): UsergroupResolver {
  const cache = new Map<string, { members: string[]; fetchedAt: number }>();
  const inFlight = new Map<string, Promise<string[]>>();

  async function fetchMembers(usergroupId: string): Promise<string[]> {
    try {
      const result = await client.usergroups.users.list({ usergroup: usergroupId });
      const members = result.users ?? [];
      cache.set(usergroupId, { members, fetchedAt: clock.now() });
      return members;
    } catch (error) {
      const stale = cache.get(usergroupId);
      if (stale) return stale.members;
      const code = (error as { data?: { error?: string } }).data?.error ?? (error as Error).message;
      throw new Error(`reading the members of user group ${usergroupId} failed: ${code}; the bot needs the usergroups:read scope`, {
        cause: error,
      });
    } finally {
      inFlight.delete(usergroupId);
    }
  }

  return {
    async members(usergroupId) {
      const cached = cache.get(usergroupId);
      if (cached && clock.now() - cached.fetchedAt < ttlMs) return cached.members;
      const pending = inFlight.get(usergroupId);
      if (pending) return pending;
      const request = fetchMembers(usergroupId);
      inFlight.set(usergroupId, request);
      return request;
    },
  };
}
