import type { SimKubeStore } from '../../kube/kube-store.js';
import type { ClusterView } from '../cluster-view.js';
import { driftReason } from './drift.js';
import { clearCondition, getCondition, setCondition } from '../status-conditions.js';

/**
 * The nodeclaim disruption controller's drift half: sets Drifted=True (reason and message = the drift reason) on
 * NodeClaims that drifted and removes the condition from those that no longer have. Writes only on change, so the
 * condition's lastTransitionTime records when drift was first seen — the order the Drift method replaces in.
 */
export function markDrift(store: SimKubeStore, view: ClusterView): void {
  const pools = new Map(view.nodePools.map((pool) => [pool.metadata.name, pool]));
  for (const managed of view.managed) {
    const claim = managed.claim;
    if (claim.metadata.deletionTimestamp) continue;
    const reason = driftReason(claim, pools.get(managed.pool), view.nodeClasses.get(claim.spec?.nodeClassRef?.name ?? ''));
    const current = getCondition(claim, 'Drifted');
    if (reason && (current?.status !== 'True' || current.reason !== reason)) {
      store.mutate('nodeclaims', claim.metadata.name, undefined, (object) => {
        setCondition(object, { type: 'Drifted', status: 'True', reason, message: reason }, view.now);
      });
    } else if (!reason && current) {
      store.mutate('nodeclaims', claim.metadata.name, undefined, (object) => {
        clearCondition(object, 'Drifted');
      });
    }
  }
}
