/**
 * The next action of a blue/green node-group replacement, from what the job saved and what EKS says now. Pure; the
 * blue/green executor (jobs/steps/nodegroups/blue-green-nodegroup.ts) reads the world, asks this, does that one thing, saves, and asks
 * again — so a run resumed after a crash picks the same next action from the same facts:
 * - `create-green`: no green clone yet (its name is saved before it is created, so a re-run finds it);
 * - `wait-green`: the clone exists but is not yet ACTIVE with its nodes Ready at the target;
 * - `delete-blue`: green is ready; blue still stands and no delete was issued (the approval gate comes first);
 * - `follow-deletion`: blue is being deleted (or gone) and its nodes drain onto green;
 * - `finish`: blue and its nodes are gone: settle green's nodes and report where the pods landed;
 * - `already-at-target` / `both-gone`: nothing to replace, or nothing left to replace it with.
 */
export interface BlueGreenFacts {
  /** What the job saved: the green name it chose, whether green was seen ready, whether it issued the delete. */
  saved: { green?: string; greenReady?: boolean; deleteIssued?: boolean; blueGone?: boolean };
  /** DescribeNodegroup of blue and of green now (undefined: not found). */
  blue?: { version?: string; status?: string };
  green?: { status?: string };
  to: string;
}

export type BlueGreenPhase = 'already-at-target' | 'both-gone' | 'create-green' | 'wait-green' | 'delete-blue' | 'follow-deletion' | 'finish';

export function decideBlueGreenPhase(facts: BlueGreenFacts): BlueGreenPhase {
  const { saved, blue, green, to } = facts;
  if (!saved.green && blue?.version === to) return 'already-at-target';
  if (!green) return blue ? 'create-green' : 'both-gone';
  if (!saved.greenReady) return 'wait-green';
  if (blue && !saved.deleteIssued && blue.status !== 'DELETING') return 'delete-blue';
  if (blue || !saved.blueGone) return 'follow-deletion';
  return 'finish';
}
