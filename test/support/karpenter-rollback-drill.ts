import type { FakeMessage } from '@eks-upgrade-bot/sim';
import type { KubeObject } from '../../src/ports/kube-port.js';
import type { E2eStack } from './e2e-stack.js';
import { answerGatesUntilSummary, answerRollbackGates, type GateAnswer, type OpenGate } from './e2e-thread.js';

const DISRUPTED = 'karpenter.sh/disrupted';

/** A Karpenter node Karpenter is taking away: tainted `karpenter.sh/disrupted`, or already being deleted. */
export function isDisrupted(node: KubeObject): boolean {
  return Boolean(node.metadata.deletionTimestamp) || (node.spec?.taints ?? []).some((t: { key: string }) => t.key === DISRUPTED);
}

/** Gates of a lab drill: Continue where offered, otherwise Force with a reason. */
export const drillDecision = (gate: OpenGate): GateAnswer =>
  gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: 'lab drill: findings reviewed' };

/**
 * Per NodePool, the most of its nodes seen disrupted at once while `counting()` says so — every node event of the
 * simulated cluster is watched, so a budget exceeded for a moment is seen.
 */
export function trackDisruptedPerPool(stack: E2eStack, cluster: string, counting: () => boolean): Record<string, number> {
  const most: Record<string, number> = {};
  const disrupted = new Map<string, Set<string>>();
  stack.sim.world.kube(cluster)!.subscribe((event) => {
    const pool = event.object.metadata.labels?.['karpenter.sh/nodepool'];
    if (event.resource !== 'nodes' || !pool) return;
    const set = disrupted.get(pool) ?? new Set<string>();
    disrupted.set(pool, set);
    if (event.type !== 'DELETED' && isDisrupted(event.object)) set.add(event.object.metadata.name);
    else set.delete(event.object.metadata.name);
    if (counting()) most[pool] = Math.max(most[pool] ?? 0, set.size);
  });
  return most;
}

/**
 * The drill both Karpenter rollback tests run: `start <cluster> --to 1.31` answered to its summary, `between()`,
 * then `rollback <cluster>` answered to the rollback summary (two-person rule: U0REQ asks, U0APP approves).
 */
export async function upgradeThenRollback(stack: E2eStack, opts: { cluster: string; channel: string; between?: () => void }): Promise<FakeMessage> {
  await stack.fake.sendSlashCommand({ text: `start ${opts.cluster} --to 1.31`, userId: 'U0REQ', channelId: opts.channel });
  await answerGatesUntilSummary(stack.fake, { channel: opts.channel, approver: 'U0APP', timeoutMs: 90_000, decide: drillDecision });
  opts.between?.();
  await stack.fake.sendSlashCommand({ text: `rollback ${opts.cluster}`, userId: 'U0REQ', channelId: opts.channel });
  const { summary, refused } = await answerRollbackGates(stack.fake, { channel: opts.channel, requester: 'U0REQ', approver: 'U0APP', summary: /^Rollback 1\.31 → 1\.30: /u, timeoutMs: 90_000, decide: drillDecision });
  if (refused) throw new Error(`rollback refused: ${refused}`);
  return summary!;
}
