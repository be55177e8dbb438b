import { scaledValue } from './pdb-status.js';

/**
 * One step of a Deployment's rollout, decided from counts (the deployment controller's rolling-update and
 * recreate arithmetic, simplified to pods): how many new-template pods to create and which pods to delete.
 * maxSurge rounds up, maxUnavailable rounds down; both zero means maxUnavailable 1.
 */
export interface PlanPod {
  name: string;
  ready: boolean;
  scheduled: boolean;
  createdAt: number;
}

export interface RolloutInput {
  replicas: number;
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  newPods: PlanPod[]; // current template, not terminating
  oldPods: PlanPod[]; // older templates, not terminating
  oldTerminating: number; // older-template pods still shutting down
}

export interface RolloutStep {
  create: number;
  delete: string[];
}

export function surgeAndUnavailable(replicas: number, strategy: RolloutInput['strategy']): { maxSurge: number; maxUnavailable: number } {
  const rolling = strategy?.rollingUpdate ?? {};
  const maxSurge = scaledValue(rolling.maxSurge ?? '25%', replicas, true);
  let maxUnavailable = scaledValue(rolling.maxUnavailable ?? '25%', replicas, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** Deletion preference of the ReplicaSet controller: unscheduled, then not ready, then newest. */
function deletionOrder(pods: PlanPod[]): PlanPod[] {
  return [...pods].sort(
    (a, b) => Number(a.scheduled) - Number(b.scheduled) || Number(a.ready) - Number(b.ready) || b.createdAt - a.createdAt,
  );
}

export function planRollout(input: RolloutInput): RolloutStep {
  const { replicas, newPods, oldPods } = input;
  if (input.strategy?.type === 'Recreate') {
    if (oldPods.length > 0) return { create: 0, delete: oldPods.map((p) => p.name) };
    if (input.oldTerminating > 0) return { create: 0, delete: [] };
    return scaleTo(newPods, replicas);
  }
  if (oldPods.length === 0) return scaleTo(newPods, replicas);
  if (newPods.length > replicas) return scaleTo(newPods, replicas);

  const { maxSurge, maxUnavailable } = surgeAndUnavailable(replicas, input.strategy);
  const total = newPods.length + oldPods.length;
  const create = Math.max(0, Math.min(replicas - newPods.length, replicas + maxSurge - total));

  // Scale old pods down no further than availability allows (new pods not yet ready do not count).
  const minAvailable = replicas - maxUnavailable;
  const newUnavailable = newPods.filter((p) => !p.ready).length + create;
  let budget = total + create - minAvailable - newUnavailable;
  const toDelete: string[] = [];
  for (const pod of deletionOrder(oldPods).filter((p) => !p.ready)) {
    if (budget <= 0) break;
    toDelete.push(pod.name);
    budget--;
  }
  const available = newPods.filter((p) => p.ready).length + oldPods.filter((p) => p.ready).length;
  let readyBudget = Math.min(budget, available - minAvailable);
  for (const pod of deletionOrder(oldPods).filter((p) => p.ready)) {
    if (readyBudget <= 0) break;
    toDelete.push(pod.name);
    readyBudget--;
  }
  return { create, delete: toDelete };
}

function scaleTo(pods: PlanPod[], replicas: number): RolloutStep {
  if (pods.length < replicas) return { create: replicas - pods.length, delete: [] };
  return { create: 0, delete: deletionOrder(pods).slice(0, pods.length - replicas).map((p) => p.name) };
}
