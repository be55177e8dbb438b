import type { RedisClient } from '../../store/redis-connection.js';
import type { Waiver, WaiverState } from '../model/waiver-match.js';
import type { WaiverAuditEntry, WaiverRequest, WaiverStore, WaiverTransition } from '../model/waiver-store.js';

/**
 * Waivers asked for and approved in Slack, in Redis with their audit: one JSON record per waiver, an index per
 * cluster, and an append-only audit list per waiver (requested, approved, rejected, revoked — who and when).
 * Transitions are compare-and-set in Lua, so two approvers clicking at once approve once, and a click on a waiver
 * that was meanwhile rejected or revoked changes nothing and says what happened instead. The interface is
 * src/waivers/model/waiver-store.ts.
 */

// KEYS[1] waiver hash {state, data}, KEYS[2] its audit list; ARGV the state the caller read, the new state, the new
// record JSON, the audit entry JSON. The write happens only if the state is still the one the caller decided on.
const TRANSITION = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'unknown' end
if state ~= ARGV[1] then return 'moved' end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'data', ARGV[3])
redis.call('RPUSH', KEYS[2], ARGV[4])
return 'done'
`;

export function waiverKeys(prefix: string) {
  return {
    record: (id: string) => `${prefix}:waiver:${id}`,
    audit: (id: string) => `${prefix}:waiver:${id}:audit`,
    byCluster: (cluster: string) => `${prefix}:waivers:${cluster}`,
    clusters: `${prefix}:waivers`,
  };
}

export function createWaiverStore(redis: RedisClient, prefix: string, ids: () => string): WaiverStore {
  const keys = waiverKeys(prefix);

  async function read(id: string): Promise<Waiver | undefined> {
    const text = await redis.hget(keys.record(id), 'data');
    return text ? (JSON.parse(text) as Waiver) : undefined;
  }

  async function transition(id: string, from: WaiverState[], patch: Partial<Waiver>, entry: WaiverAuditEntry): Promise<WaiverTransition> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await read(id);
      if (!current) return { outcome: 'unknown' };
      if (!from.includes(current.state)) return { outcome: 'not-allowed', waiver: current };
      const next: Waiver = { ...current, ...patch };
      const result = await redis.eval(TRANSITION, 2, keys.record(id), keys.audit(id), current.state, next.state, JSON.stringify(next), JSON.stringify(entry));
      if (result === 'done') return { outcome: 'done', waiver: next };
      if (result === 'unknown') return { outcome: 'unknown' };
      // 'moved': someone else changed it between our read and write; decide again on what it is now.
    }
    const latest = await read(id);
    return latest ? { outcome: 'not-allowed', waiver: latest } : { outcome: 'unknown' };
  }

  return {
    async request(request, now) {
      const waiver: Waiver = { id: ids(), ...request, requestedAt: now, state: 'pending', source: 'slack' };
      await redis
        .multi()
        .hset(keys.record(waiver.id), 'state', waiver.state, 'data', JSON.stringify(waiver))
        .rpush(keys.audit(waiver.id), JSON.stringify({ at: now, by: request.requestedBy, action: 'requested', note: request.reason } satisfies WaiverAuditEntry))
        .zadd(keys.byCluster(request.cluster), now, waiver.id)
        .sadd(keys.clusters, request.cluster)
        .exec();
      return waiver;
    },
    async withdraw(id) {
      const waiver = await read(id);
      if (!waiver || waiver.state !== 'pending') return false;
      await redis.multi().del(keys.record(id), keys.audit(id)).zrem(keys.byCluster(waiver.cluster), id).exec();
      return true;
    },
    get: read,
    async list(cluster) {
      const clusters = cluster ? [cluster] : await redis.smembers(keys.clusters);
      const ids = (await Promise.all(clusters.map((c) => redis.zrevrange(keys.byCluster(c), 0, -1)))).flat();
      if (ids.length === 0) return [];
      const records = await Promise.all(ids.map((id) => read(id)));
      return records.filter((waiver): waiver is Waiver => !!waiver).sort((a, b) => b.requestedAt - a.requestedAt);
    },
    approve: (id, by, now) => transition(id, ['pending'], { state: 'active', approvedBy: by, approvedAt: now }, { at: now, by, action: 'approved' }),
    reject: (id, by, now) => transition(id, ['pending'], { state: 'rejected', closedBy: by, closedAt: now }, { at: now, by, action: 'rejected' }),
    revoke: (id, by, now) => transition(id, ['active', 'pending'], { state: 'revoked', closedBy: by, closedAt: now }, { at: now, by, action: 'revoked' }),
    async audit(id) {
      return (await redis.lrange(keys.audit(id), 0, -1)).map((text) => JSON.parse(text) as WaiverAuditEntry);
    },
  };
}
