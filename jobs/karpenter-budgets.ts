import type { KubeObject, KubePort } from '../src/ports/kube-port.js';
import type { StepContext } from '../src/upgrade/step-context.js';

/**
 * NodePool disruption budgets during an upgrade: the original budgets are saved in job.data before the first
 * change, the upgrade budget from clusters.yaml (e.g. nodes: "1") is set for the rollout, nodes: "0" while the job
 * is paused, and the originals are put back at the end, on abort and on failure — also by a worker that resumed
 * the job after a crash, since the originals live in job.data, not in memory.
 */
interface PoolBudgetState {
  /** null: the NodePool had no budgets (Karpenter's default applies); undefined: not saved yet. */
  originalBudgets?: unknown[] | null;
  restored?: boolean;
}

const stateKey = (pool: string) => `pool:${pool}`;

function budgetsOf(pool: KubeObject): unknown[] | null {
  const budgets = pool.spec?.disruption?.budgets;
  return Array.isArray(budgets) ? budgets : null;
}

async function patchBudgets(kube: KubePort, pool: string, budgets: unknown[] | null): Promise<void> {
  // JSON merge patch: null removes the field, so a pool that had no budgets gets Karpenter's default back.
  await kube.patch('nodepools', pool, { spec: { disruption: { budgets } } }, { type: 'merge' });
}

/** Saves each pool's budgets (once), then sets `nodes` as its only budget where it differs. */
export async function setPoolBudgets(ctx: StepContext, kube: KubePort, pools: KubeObject[], nodes: string): Promise<void> {
  for (const pool of pools) {
    const name = pool.metadata.name;
    const saved = (ctx.stepState()[stateKey(name)] ?? {}) as PoolBudgetState;
    if (saved.originalBudgets === undefined) {
      await ctx.saveStepState({ [stateKey(name)]: { originalBudgets: budgetsOf(pool) } satisfies PoolBudgetState });
    }
    const current = budgetsOf(pool);
    if (JSON.stringify(current) === JSON.stringify([{ nodes }])) continue;
    await patchBudgets(kube, name, [{ nodes }]);
    if (saved.restored) await ctx.saveStepState({ [stateKey(name)]: { ...saved, restored: false } });
  }
}

/** Puts back every budget this step changed and has not restored yet; returns the pools it restored. */
export async function restorePoolBudgets(ctx: StepContext, kube?: KubePort): Promise<string[]> {
  const restored: string[] = [];
  const entries = Object.entries(ctx.stepState()).filter(([key]) => key.startsWith('pool:'));
  if (entries.length === 0) return restored;
  const client = kube ?? (await ctx.kube());
  for (const [key, value] of entries) {
    const state = value as PoolBudgetState;
    if (state.originalBudgets === undefined || state.restored) continue;
    const name = key.slice('pool:'.length);
    try {
      await patchBudgets(client, name, state.originalBudgets);
    } catch (error) {
      if ((error as { code?: number }).code !== 404) throw error;
    }
    await ctx.saveStepState({ [key]: { ...state, restored: true } });
    restored.push(name);
  }
  return restored;
}

export function describeBudgets(budgets: unknown[] | null | undefined): string {
  if (!budgets) return 'the default (nodes: 10%)';
  return budgets.map((b) => `nodes: "${(b as { nodes?: string }).nodes}"${(b as { schedule?: string }).schedule ? ` (${(b as { schedule?: string }).schedule})` : ''}`).join(', ');
}
