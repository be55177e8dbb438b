import type { GuardEvaluation, GuardEvaluationStore } from '../ports/guards/guard-evaluations.js';
import type { RedisClient } from './redis-connection.js';

/**
 * Each cluster's last guard evaluations, a hash per cluster under `<prefix>:guards:last:<cluster>` (field: the guard's
 * name, value: the GuardEvaluation as JSON), kept 30 days after the last write: `status` shows them, honestly
 * dated, long after the job or soak that made them ended.
 */
const KEEP_SECONDS = 30 * 24 * 3600;

export function guardEvaluationsKey(prefix: string, cluster: string): string {
  return `${prefix}:guards:last:${cluster}`;
}

export function createGuardEvaluationStore(redis: RedisClient, prefix: string): GuardEvaluationStore {
  return {
    async record(cluster, evaluations) {
      const fields = Object.entries(evaluations).flatMap(([name, evaluation]) => [name, JSON.stringify(evaluation)]);
      if (fields.length === 0) return;
      const key = guardEvaluationsKey(prefix, cluster);
      await redis.multi().hset(key, ...fields).expire(key, KEEP_SECONDS).exec();
    },
    async last(cluster) {
      const raw = await redis.hgetall(guardEvaluationsKey(prefix, cluster));
      return Object.fromEntries(Object.entries(raw).map(([name, json]) => [name, JSON.parse(json) as GuardEvaluation]));
    },
  };
}
