import type { RedisClient } from './redis-connection.js';
import type { EngineKeys } from './engine-keys.js';
import type { GateAction, GateModel } from '../ports/timeline-event.js';
import type { GateState, GateRecord, GateAnswerOutcome, GateStore } from '../ports/gate-store.js';

/**
 * Approval gates in Redis. A gate is not a BullMQ primitive: the gate step opens a record here and parks the job
 * (delayed, holding no worker slot); answers are compared-and-set by a Lua script, so of two approvers clicking at
 * once, or one clicking twice, exactly one answer wins, and a click on an older card revision changes nothing.
 */

// KEYS[1] gate hash; ARGV revision, model JSON, openedAt. A lower or equal revision never replaces a newer one,
// so a gate step re-run after a crash leaves the open gate (and any answer it got meanwhile) alone.
const OPEN = `
local rev = redis.call('HGET', KEYS[1], 'revision')
if rev and tonumber(rev) >= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'revision', ARGV[1], 'model', ARGV[2], 'state', 'open', 'openedAt', ARGV[3])
return 1
`;

// KEYS[1] gate hash; ARGV revision, action, by, at, reason, allowed actions (comma-separated).
const ANSWER = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'stale'} end
if redis.call('HGET', KEYS[1], 'revision') ~= ARGV[1] then return {'stale'} end
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'answered' then
  return {'already-answered', redis.call('HGET', KEYS[1], 'by'), redis.call('HGET', KEYS[1], 'action'), redis.call('HGET', KEYS[1], 'at')}
end
if state ~= 'open' then return {'stale'} end
if not string.find(',' .. ARGV[6] .. ',', ',' .. ARGV[2] .. ',', 1, true) then return {'stale'} end
redis.call('HSET', KEYS[1], 'state', 'answered', 'action', ARGV[2], 'by', ARGV[3], 'at', ARGV[4], 'reason', ARGV[5])
return {'accepted'}
`;

export function createGateStore(redis: RedisClient, keys: EngineKeys): GateStore {
  return {
    async open(gate, openedAt) {
      const opened = await redis.eval(OPEN, 1, keys.gate(gate.jobId, gate.gateId), gate.revision, JSON.stringify(gate), openedAt);
      return Number(opened) === 1;
    },
    async read(jobId, gateId) {
      const hash = await redis.hgetall(keys.gate(jobId, gateId));
      if (!hash.model) return undefined;
      return {
        gate: JSON.parse(hash.model) as GateModel,
        state: hash.state as GateState,
        openedAt: Number(hash.openedAt),
        answer: hash.action
          ? { action: hash.action as GateAction | 'timeout', by: hash.by, at: Number(hash.at), reason: hash.reason || undefined }
          : undefined,
      };
    },
    async answer(jobId, gateId, revision, answer) {
      const record = await this.read(jobId, gateId);
      // Abort is always on offer (the Abort control works at any gate); a timeout is the engine's own answer.
      const allowed = [...(record?.gate.actions ?? []), 'abort', 'timeout'].join(',');
      const result = (await redis.eval(
        ANSWER,
        1,
        keys.gate(jobId, gateId),
        String(revision),
        answer.action,
        answer.by,
        String(answer.at),
        answer.reason ?? '',
        allowed,
      )) as string[];
      if (result[0] === 'accepted') return { outcome: 'accepted' };
      if (result[0] === 'already-answered') {
        return { outcome: 'already-answered', by: result[1], action: result[2] as GateAction | 'timeout', at: Number(result[3]) };
      }
      return { outcome: 'stale' };
    },
  };
}

export type { GateState, GateRecord, GateAnswerOutcome, GateStore };
