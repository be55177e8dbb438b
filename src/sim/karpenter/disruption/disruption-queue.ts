import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimKubeStore } from '../../kube/kube-store.js';
import type { SimClock } from '../../sim-clock.js';
import type { DisruptionCommand } from './drift-disruption.js';
import { instanceTypeOptions } from '../nodeclaims/offerings.js';
import { CAPACITY_TYPE_LABEL, DISRUPTED_TAINT, INSTANCE_TYPE_LABEL } from '../karpenter-keys.js';
import type { KarpenterTelemetry } from '../karpenter-telemetry.js';
import type { NodeClaimLauncher } from '../nodeclaims/nodeclaim-lifecycle.js';
import { describeInstanceTypes } from '../nodeclaims/instance-types.js';
import type { Taint } from '../nodeclaims/scheduling-rules.js';
import { clearCondition, isConditionTrue, setCondition } from '../status-conditions.js';

/**
 * Carries out disruption commands in Karpenter v1's order (pkg/controllers/disruption/queue.go): taint the old node
 * karpenter.sh/disrupted:NoSchedule first, mark its NodeClaim's DisruptionReason, launch the replacements, wait
 * until every replacement is Initialized, then delete the old NodeClaim (termination drains and removes it). If a
 * replacement fails or times out, the command is undone: the taint comes off and unfinished replacements go.
 * While a command is here its node counts as disrupting, which is what keeps budgets honest.
 */
export interface DisruptionQueue {
  start(command: DisruptionCommand): void;
  /** NodeClaim names of nodes being disrupted by commands in the queue. */
  marked(): Set<string>;
  /** NodeClaim names of replacements still on their way. */
  replacements(): Set<string>;
  /** Moves commands on; returns true while any command is waiting. */
  reconcile(): boolean;
}

interface InFlight {
  id: string;
  reason: string;
  claimName: string;
  nodeName: string;
  replacements: string[];
  startedAt: number;
}

// Karpenter gives a replacement 5 minutes to launch and 15 to register before it gives up on the command.
const REPLACEMENT_TIMEOUT_MS = 20 * 60_000;

export function createDisruptionQueue(deps: {
  store: SimKubeStore; clock: SimClock; telemetry: KarpenterTelemetry; launcher: NodeClaimLauncher; random: () => number;
}): DisruptionQueue {
  const { store, clock, telemetry, launcher } = deps;
  const inFlight: InFlight[] = [];

  function describeCommand(command: DisruptionCommand): Record<string, unknown> {
    const labels = command.candidate.node?.metadata.labels ?? {};
    const options = command.replacements.map((r) => instanceTypeOptions(r.offerings));
    const capacity = labels[CAPACITY_TYPE_LABEL] ?? 'on-demand';
    // Karpenter launches spot whenever the replacement's requirements allow it.
    const replacementCapacity = (r: DisruptionCommand['replacements'][number]) => (r.offerings.some((o) => o.capacityType === 'spot') ? 'spot' : 'on-demand');
    const summary = `${command.reason}/${command.decision === 'replace' ? 'Replace' : 'Delete'}, terminating 1 nodes (${command.pods.length} pods) ` +
      `${command.candidate.node?.metadata.name}/${labels[INSTANCE_TYPE_LABEL]}/${capacity}` +
      (command.decision === 'replace' ? ` and replacing with ${replacementCapacity(command.replacements[0])} node from types ${describeInstanceTypes(options[0] ?? [])}` : '');
    return {
      'command-id': `${deps.random().toString(16).slice(2, 10)}-${deps.random().toString(16).slice(2, 6)}`,
      reason: command.reason.toLowerCase(),
      command: summary,
      decision: command.decision,
      'disrupted-node-count': 1,
      'replacement-node-count': command.replacements.length,
      'pod-count': command.pods.length,
      'disrupted-nodes': [{
        Node: { name: command.candidate.node?.metadata.name },
        NodeClaim: { name: command.candidate.claim.metadata.name },
        'capacity-type': capacity,
        'instance-type': labels[INSTANCE_TYPE_LABEL],
      }],
      'replacement-nodes': command.replacements.map((r, i) => ({
        'capacity-type': replacementCapacity(r), ...(options.length === 1 ? { 'instance-types': describeInstanceTypes(options[i]) } : {}),
      })),
    };
  }

  function taintNode(nodeName: string): void {
    let added = false;
    store.mutate('nodes', nodeName, undefined, (node) => {
      const taints: Taint[] = node.spec.taints ?? [];
      if (taints.some((t) => t.key === DISRUPTED_TAINT.key)) return;
      node.spec.taints = [...taints, { ...DISRUPTED_TAINT }];
      added = true;
    });
    if (added) telemetry.info('tainted node', 'node.termination', { Node: { name: nodeName }, 'taint.Key': DISRUPTED_TAINT.key, 'taint.Value': '', 'taint.Effect': DISRUPTED_TAINT.effect });
  }

  function deleteOld(entry: InFlight): void {
    const claim = store.get('nodeclaims', entry.claimName);
    if (!claim) return;
    telemetry.event({ kind: 'Node', name: entry.nodeName }, 'DisruptionTerminating', `Disrupting Node: ${entry.reason}`);
    telemetry.event({ kind: 'NodeClaim', name: claim.metadata.name, uid: claim.metadata.uid }, 'DisruptionTerminating', `Disrupting NodeClaim: ${entry.reason}`);
    store.delete('nodeclaims', entry.claimName);
  }

  function rollBack(entry: InFlight, why: string): void {
    telemetry.error('failed to disrupt nodes', 'disruption', { 'command-id': entry.id, error: why, NodeClaim: { name: entry.claimName } });
    // If the command cannot finish, the old node must take pods again: remove the taint we added.
    store.mutate('nodes', entry.nodeName, undefined, (node) => {
      node.spec.taints = (node.spec.taints ?? []).filter((t: Taint) => t.key !== DISRUPTED_TAINT.key);
      if (node.spec.taints.length === 0) delete node.spec.taints;
    });
    store.mutate('nodeclaims', entry.claimName, undefined, (claim) => {
      clearCondition(claim, 'DisruptionReason');
    });
    for (const name of entry.replacements) {
      const replacement = store.get('nodeclaims', name);
      if (replacement && !isConditionTrue(replacement, 'Initialized')) store.delete('nodeclaims', name);
    }
  }

  return {
    start(command) {
      const nodeName = command.candidate.node!.metadata.name;
      const claimName = command.candidate.claim.metadata.name;
      const fields = describeCommand(command);
      telemetry.info('disrupting node(s)', 'disruption', fields);
      taintNode(nodeName);
      store.mutate('nodeclaims', claimName, undefined, (claim) => {
        setCondition(claim, { type: 'DisruptionReason', status: 'True', reason: command.reason, message: command.reason }, clock.now());
      });
      const replacements = command.replacements.map((plan) => {
        const created: KubeObject = launcher.create(plan, 'disruption');
        const involved = { kind: 'NodeClaim', name: created.metadata.name, uid: created.metadata.uid };
        telemetry.event(involved, 'DisruptionLaunching', `Launching NodeClaim: ${command.reason}`);
        telemetry.event(involved, 'DisruptionWaitingReadiness', 'Waiting on readiness to continue disruption');
        return created.metadata.name;
      });
      const entry: InFlight = { id: String(fields['command-id']), reason: command.reason, claimName, nodeName, replacements, startedAt: clock.now() };
      if (replacements.length === 0) deleteOld(entry);
      else inFlight.push(entry);
    },
    marked: () => new Set(inFlight.map((entry) => entry.claimName)),
    replacements: () => new Set(inFlight.flatMap((entry) => entry.replacements)),
    reconcile() {
      for (const entry of [...inFlight]) {
        const replacements = entry.replacements.map((name) => store.get('nodeclaims', name));
        const old = store.get('nodeclaims', entry.claimName);
        let done = true;
        if (!old || old.metadata.deletionTimestamp) {
          // Someone else deleted the old node meanwhile; the replacements stay as ordinary capacity.
        } else if (replacements.some((r) => !r || r.metadata.deletionTimestamp)) {
          rollBack(entry, 'replacement nodeclaim was deleted before it initialized');
        } else if (replacements.every((r) => isConditionTrue(r!, 'Initialized'))) {
          deleteOld(entry);
        } else if (clock.now() - entry.startedAt > REPLACEMENT_TIMEOUT_MS) {
          rollBack(entry, 'replacement nodeclaims did not initialize within 20m');
        } else {
          done = false;
        }
        if (done) inFlight.splice(inFlight.indexOf(entry), 1);
      }
      return inFlight.length > 0;
    },
  };
}
