import type { RedisClient } from '../../store/redis-connection.js';
import type { StatusCardModel } from '../../ports/timeline-event.js';
import type { OutboxEntry } from './outbox-entry.js';

/**
 * The thread outbox's durable state, in plain Redis structures driven by small Lua scripts (each script is atomic,
 * which is what makes dedupe, coalescing and hand-over between workers race-free):
 *
 *   <base>:channels                    set of channels with queued or in-flight work
 *   <base>:q:<channel>                 list of entry JSON, FIFO — one list per channel keeps every thread in order
 *   <base>:inflight:<channel>          the entry being delivered; survives a crash and is redelivered first
 *                                      (after looking in the thread for it: the dead worker may have posted it)
 *   <base>:lock:<channel>              which worker delivers this channel (token, PX lease renewed while working)
 *   <base>:next:<channel>              epoch ms before which no post goes to this channel: Retry-After / backoff and
 *                                      a post found already delivered, shared by all workers and kept across restarts
 *   <base>:hold:<channel>              epoch ms before which no call at all goes to this channel (Retry-After / backoff
 *                                      only): edits wait for it, not for the posts' pace
 *   <base>:card-next:<channel>:<ts>    epoch ms before which the status card is not edited again (one edit per post
 *                                      interval: it shows only the newest state, so quicker edits spend Slack's budget)
 *   <base>:edits                       the workspace's chat.update token bucket (tokens, at): Slack's Tier 3 is per
 *                                      method and workspace, so every channel's edits draw from one bucket
 *   <base>:posts:<channel>             the channel's post bucket (tokens, at): a short burst, then one post per interval
 *   <base>:dedupe:<channel>:<ts>:<ns>:<key>   set once per key: a second postEvent with the key is a no-op
 *   <base>:gate-ts:<channel>:<ts>:key:<key> and …:gate:<job>:<gate>:<rev>   ts of a posted gate card
 *   <base>:msg-ts:<channel>:<ts>:<key>  ts of a reply kept current in place (a step's message), for its chat.update
 *   <base>:rank:<channel>:<ts>:<key>    highest rank queued for that reply (started 0, progress 1, ended 2)
 *   <base>:card:<channel>:<ts>          latest status-card model; <base>:card-pending:… says an entry is queued
 *   <base>:dead:<channel>              entries Slack refused for good (capped), for an operator to inspect
 *
 * Why not BullMQ: it has no per-channel FIFO with in-place replacement of a queued item, and its retries reorder
 * jobs; a list per channel gives ordering, coalescing and a single in-flight item directly.
 */

/** Dedupe records and card state live this long; a paused upgrade may sit for days, so be generous. */
const STATE_TTL_SECONDS = 30 * 24 * 3600;
/** How far back from the tail an incoming 'progress' looks for a queued one of the same step to replace. */
const COALESCE_SCAN_DEPTH = 50;
const DEAD_LETTER_CAP = 200;

const ENQUEUE_EVENT = `
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[3]) then return 0 end
if ARGV[4] ~= '' then
  local items = redis.call('LRANGE', KEYS[1], -tonumber(ARGV[5]), -1)
  local first = redis.call('LLEN', KEYS[1]) - #items
  for i = #items, 1, -1 do
    local ok, e = pcall(cjson.decode, items[i])
    if ok and e.op ~= 'card' then
      if e.coalesce == ARGV[4] then
        redis.call('LSET', KEYS[1], first + i - 1, ARGV[1])
        return 2
      end
      break
    end
  end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
return 1`;

const ENQUEUE_UPSERT = `
if ARGV[7] == '1' and not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[3]) then return 0 end
local rank = tonumber(ARGV[6])
if rank < tonumber(redis.call('GET', KEYS[4]) or '-1') then return 3 end
redis.call('SET', KEYS[4], ARGV[6], 'EX', ARGV[3])
local items = redis.call('LRANGE', KEYS[1], -tonumber(ARGV[5]), -1)
local first = redis.call('LLEN', KEYS[1]) - #items
for i = #items, 1, -1 do
  local ok, e = pcall(cjson.decode, items[i])
  if ok and e.op == 'upsert' and e.key == ARGV[4] then
    redis.call('LSET', KEYS[1], first + i - 1, ARGV[1])
    return 2
  end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
return 1`;

const ENQUEUE_CARD = `
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[4])
if redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[4]) then
  redis.call('RPUSH', KEYS[1], ARGV[2])
  redis.call('SADD', KEYS[4], ARGV[3])
  return 1
end
return 0`;

const CLAIM = `
local current = redis.call('GET', KEYS[1])
if current then return {current, 1} end
local entry = redis.call('LPOP', KEYS[2])
if entry then
  redis.call('SET', KEYS[1], entry)
  return {entry, 0}
end
redis.call('SREM', KEYS[3], ARGV[1])
return false`;

const COMPLETE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

const EXTEND_HOLD = `
if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1`;

/** Takes one token from a bucket of ARGV[3] refilling one per ARGV[2] ms; returns 0, or the ms until one is there. */
const TAKE_TOKEN = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
if now > at then tokens = math.min(burst, tokens + (now - at) / interval) end
local wait = 0
local cost = tonumber(ARGV[5]) or 1
if tokens >= 1 or ARGV[4] == '1' then tokens = tokens - cost else wait = math.ceil((1 - tokens) * interval) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(math.max(now, at)))
redis.call('PEXPIRE', KEYS[1], math.ceil(interval * burst) + 60000)
return wait`;

const RENEW_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export type EnqueueOutcome = 'queued' | 'duplicate' | 'coalesced' | 'stale';
export type DedupeNamespace = 'event' | 'answer' | 'file' | 'upsert';

/**
 * An entry to deliver. `resumed`: it was already in flight — a worker took it and stopped (crash, SIGKILL,
 * shutdown, lost lease) before recording the outcome, so Slack may already have it.
 */
export interface ClaimedEntry {
  raw: string;
  resumed: boolean;
}

export interface OutboxStore {
  enqueue(entry: Exclude<OutboxEntry, { op: 'card' }>, namespace: DedupeNamespace): Promise<EnqueueOutcome>;
  /**
   * Queues a version of a reply kept in place. 'coalesced': it replaced a queued version of the same key where that
   * stood; 'stale': a higher-ranked version was already queued; 'duplicate': `dedupeKey` was seen before.
   */
  enqueueUpsert(entry: Extract<OutboxEntry, { op: 'upsert' }>, dedupeKey?: string): Promise<EnqueueOutcome>;
  saveMessageTs(channel: string, threadTs: string, key: string, ts: string): Promise<void>;
  findMessageTs(channel: string, threadTs: string, key: string): Promise<string | undefined>;
  enqueueCard(entry: Extract<OutboxEntry, { op: 'card' }>, card: StatusCardModel): Promise<void>;
  /** The entry to deliver next for a channel (the in-flight one first); undefined when the channel is idle. */
  claim(channel: string): Promise<ClaimedEntry | undefined>;
  complete(channel: string, raw: string): Promise<void>;
  deadLetter(channel: string, raw: string, reason: string): Promise<void>;
  /** Reads the newest card state, clearing the pending mark first so later updates queue a fresh entry. */
  takeCard(channel: string, threadTs: string): Promise<StatusCardModel | undefined>;
  saveGateTs(channel: string, threadTs: string, names: string[], ts: string): Promise<void>;
  findGateTs(channel: string, threadTs: string, names: string[]): Promise<string | undefined>;
  notBefore(channel: string): Promise<number>;
  /** Sets the channel's next allowed post time (Retry-After, backoff; the pump holds the channel, so it may bring it forward). */
  holdUntil(channel: string, at: number, now: number): Promise<void>;
  /** Until when Slack asked (Retry-After) or backoff says that no call at all goes to the channel. */
  heldUntil(channel: string): Promise<number>;
  /** Holds every call to the channel, edits included, until `at` (never brings a hold forward). */
  holdChannel(channel: string, at: number, now: number): Promise<void>;
  /** When the thread's status card may be edited next, and setting it. */
  cardNotBefore(channel: string, threadTs: string): Promise<number>;
  holdCard(channel: string, threadTs: string, at: number, now: number): Promise<void>;
  /** One chat.update from the workspace's bucket of `burst` refilling one per `intervalMs`: 0 when taken, else the ms to wait. */
  takeEditToken(now: number, intervalMs: number, burst: number): Promise<number>;
  /**
   * One post from the channel's bucket, likewise. `already` counts a post made outside the pump (a thread's parent
   * message): it takes its token even from an empty bucket, which then owes it, so the next post waits.
   */
  takePostToken(channel: string, now: number, intervalMs: number, burst: number, already?: boolean): Promise<number>;
  /**
   * Charges a bucket (a channel's posts, or the workspace's edits) for the time its last call took to answer, as a
   * fraction of a token: the token was taken before the call, Slack counts the call when it arrives, so a slow call
   * followed by a quick one must not reach Slack closer together than the bucket allows.
   */
  oweTransit(bucket: { channel: string } | 'edits', now: number, intervalMs: number, burst: number, transitMs: number): Promise<void>;
  acquireLock(channel: string, token: string, ttlMs: number): Promise<boolean>;
  renewLock(channel: string, token: string, ttlMs: number): Promise<boolean>;
  releaseLock(channel: string, token: string): Promise<void>;
  busyChannels(): Promise<string[]>;
  /** Entries queued or in flight across every channel (for the outbox depth gauge). */
  depth(): Promise<number>;
}

export function createOutboxStore(redis: RedisClient, prefix: string): OutboxStore {
  const base = `${prefix}:thread`;
  const k = {
    channels: `${base}:channels`,
    queue: (ch: string) => `${base}:q:${ch}`,
    inflight: (ch: string) => `${base}:inflight:${ch}`,
    lock: (ch: string) => `${base}:lock:${ch}`,
    next: (ch: string) => `${base}:next:${ch}`,
    hold: (ch: string) => `${base}:hold:${ch}`,
    edits: `${base}:edits`,
    posts: (ch: string) => `${base}:posts:${ch}`,
    dead: (ch: string) => `${base}:dead:${ch}`,
    dedupe: (ch: string, ts: string, ns: string, key: string) => `${base}:dedupe:${ch}:${ts}:${ns}:${key}`,
    gateTs: (ch: string, ts: string, name: string) => `${base}:gate-ts:${ch}:${ts}:${name}`,
    card: (ch: string, ts: string) => `${base}:card:${ch}:${ts}`,
    msgTs: (ch: string, ts: string, key: string) => `${base}:msg-ts:${ch}:${ts}:${key}`,
    rank: (ch: string, ts: string, key: string) => `${base}:rank:${ch}:${ts}:${key}`,
    cardPending: (ch: string, ts: string) => `${base}:card-pending:${ch}:${ts}`,
    cardNext: (ch: string, ts: string) => `${base}:card-next:${ch}:${ts}`,
  };

  return {
    async enqueue(entry, namespace) {
      const coalesce = entry.op === 'event' ? (entry.coalesce ?? '') : '';
      const result = await redis.eval(
        ENQUEUE_EVENT,
        3,
        k.queue(entry.channel),
        k.dedupe(entry.channel, entry.threadTs, namespace, entry.key),
        k.channels,
        JSON.stringify(entry),
        entry.channel,
        STATE_TTL_SECONDS,
        coalesce,
        COALESCE_SCAN_DEPTH,
      );
      return result === 0 ? 'duplicate' : result === 2 ? 'coalesced' : 'queued';
    },
    async enqueueUpsert(entry, dedupeKey) {
      const result = await redis.eval(
        ENQUEUE_UPSERT,
        4,
        k.queue(entry.channel),
        k.dedupe(entry.channel, entry.threadTs, 'upsert', dedupeKey ?? entry.key),
        k.channels,
        k.rank(entry.channel, entry.threadTs, entry.key),
        JSON.stringify(entry),
        entry.channel,
        STATE_TTL_SECONDS,
        entry.key,
        COALESCE_SCAN_DEPTH,
        entry.rank,
        dedupeKey === undefined ? '0' : '1',
      );
      return result === 0 ? 'duplicate' : result === 2 ? 'coalesced' : result === 3 ? 'stale' : 'queued';
    },
    async saveMessageTs(channel, threadTs, key, ts) {
      await redis.set(k.msgTs(channel, threadTs, key), ts, 'EX', STATE_TTL_SECONDS);
    },
    async findMessageTs(channel, threadTs, key) {
      return (await redis.get(k.msgTs(channel, threadTs, key))) ?? undefined;
    },
    async enqueueCard(entry, card) {
      await redis.eval(
        ENQUEUE_CARD,
        4,
        k.queue(entry.channel),
        k.card(entry.channel, entry.threadTs),
        k.cardPending(entry.channel, entry.threadTs),
        k.channels,
        JSON.stringify(card),
        JSON.stringify(entry),
        entry.channel,
        STATE_TTL_SECONDS,
      );
    },
    async claim(channel) {
      const claimed = await redis.eval(CLAIM, 3, k.inflight(channel), k.queue(channel), k.channels, channel);
      if (!Array.isArray(claimed) || typeof claimed[0] !== 'string') return undefined;
      return { raw: claimed[0], resumed: claimed[1] === 1 };
    },
    async complete(channel, raw) {
      await redis.eval(COMPLETE, 1, k.inflight(channel), raw);
    },
    async deadLetter(channel, raw, reason) {
      await redis
        .multi()
        .lpush(k.dead(channel), JSON.stringify({ reason, entry: raw }))
        .ltrim(k.dead(channel), 0, DEAD_LETTER_CAP - 1)
        .exec();
      await redis.eval(COMPLETE, 1, k.inflight(channel), raw);
    },
    async takeCard(channel, threadTs) {
      await redis.del(k.cardPending(channel, threadTs));
      const raw = await redis.get(k.card(channel, threadTs));
      return raw ? (JSON.parse(raw) as StatusCardModel) : undefined;
    },
    async saveGateTs(channel, threadTs, names, ts) {
      const multi = redis.multi();
      for (const name of names) multi.set(k.gateTs(channel, threadTs, name), ts, 'EX', STATE_TTL_SECONDS);
      await multi.exec();
    },
    async findGateTs(channel, threadTs, names) {
      for (const name of names) {
        const ts = await redis.get(k.gateTs(channel, threadTs, name));
        if (ts) return ts;
      }
      return undefined;
    },
    async notBefore(channel) {
      return Number((await redis.get(k.next(channel))) ?? 0);
    },
    async holdUntil(channel, at, now) {
      await redis.set(k.next(channel), String(at), 'PX', Math.max(0, at - now) + 60_000);
    },
    async heldUntil(channel) {
      return Number((await redis.get(k.hold(channel))) ?? 0);
    },
    async holdChannel(channel, at, now) {
      await redis.eval(EXTEND_HOLD, 1, k.hold(channel), at, Math.max(0, at - now) + 60_000);
    },
    async cardNotBefore(channel, threadTs) {
      return Number((await redis.get(k.cardNext(channel, threadTs))) ?? 0);
    },
    async holdCard(channel, threadTs, at, now) {
      await redis.set(k.cardNext(channel, threadTs), String(at), 'PX', Math.max(1, at - now) + 60_000);
    },
    async takeEditToken(now, intervalMs, burst) {
      return Number(await redis.eval(TAKE_TOKEN, 1, k.edits, now, Math.max(1, intervalMs), Math.max(1, burst), '0', 1));
    },
    async takePostToken(channel, now, intervalMs, burst, already = false) {
      return Number(await redis.eval(TAKE_TOKEN, 1, k.posts(channel), now, Math.max(1, intervalMs), Math.max(1, burst), already ? '1' : '0', 1));
    },
    async oweTransit(bucket, now, intervalMs, burst, transitMs) {
      const key = bucket === 'edits' ? k.edits : k.posts(bucket.channel);
      const interval = Math.max(1, intervalMs);
      await redis.eval(TAKE_TOKEN, 1, key, now, interval, Math.max(1, burst), '1', Math.max(0, transitMs) / interval);
    },
    async acquireLock(channel, token, ttlMs) {
      return (await redis.set(k.lock(channel), token, 'PX', ttlMs, 'NX')) === 'OK';
    },
    async renewLock(channel, token, ttlMs) {
      return (await redis.eval(RENEW_LOCK, 1, k.lock(channel), token, ttlMs)) === 1;
    },
    async releaseLock(channel, token) {
      await redis.eval(RELEASE_LOCK, 1, k.lock(channel), token);
    },
    async busyChannels() {
      return redis.smembers(k.channels);
    },
    async depth() {
      const channels = await redis.smembers(k.channels);
      if (channels.length === 0) return 0;
      const pipeline = redis.pipeline();
      for (const channel of channels) pipeline.llen(k.queue(channel)).llen(k.inflight(channel));
      const results = (await pipeline.exec()) ?? [];
      return results.reduce((sum, [, count]) => sum + (typeof count === 'number' ? count : 0), 0);
    },
  };
}
