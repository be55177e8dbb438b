import { maxKubeletLag, SKEW_RULE_TEXT } from './kubelet-skew.js';
import { canDefer, type DataPlaneUnit } from './planner/data-plane-units.js';
import { formatMinutes, type IncrementalStrategy } from '../ports/upgrade-plan.js';
import { minorsBetween } from './upgrade-path.js';

/**
 * The workshop's "incremental in-place" strategy: the control plane moves hop by hop, but the data plane only moves
 * when the skew policy would break at the next hop — so a 1.25 node group can stay put through 1.26 and 1.27 and
 * go straight to 1.28, replacing its nodes once instead of three times. Greedy per unit: defer while the unit's
 * kubelets stay within the allowed lag of the next control-plane minor; always move on the last hop.
 */
export interface Deferral {
  /** unit ref → hop target → the later hop target the unit's step can wait for. */
  deferrableTo: Map<string, Map<string, string>>;
  /** unit ref → hop targets where the unit still moves under the incremental strategy. */
  movesIn: Map<string, string[]>;
}

export function planDeferral(units: DataPlaneUnit[], hops: string[]): Deferral {
  const deferrableTo = new Map<string, Map<string, string>>();
  const movesIn = new Map<string, string[]>();
  for (const unit of units) {
    const moves: string[] = [];
    const deferred: string[] = [];
    let minor = unit.minor;
    hops.forEach((hop, index) => {
      if (!minor || minorsBetween(minor, hop) <= 0) return; // already there
      const next = hops[index + 1];
      const waits = canDefer(unit) && next !== undefined && minorsBetween(minor, next) <= maxKubeletLag(next);
      if (waits) {
        deferred.push(hop);
        return;
      }
      moves.push(hop);
      const target = new Map(deferrableTo.get(unit.ref) ?? []);
      for (const skipped of deferred.splice(0)) target.set(skipped, hop);
      deferrableTo.set(unit.ref, target);
      minor = hop;
    });
    movesIn.set(unit.ref, moves);
  }
  return { deferrableTo, movesIn };
}

export function describeIncremental(
  hops: string[],
  deferral: Deferral,
  savedMinutes: number,
  unitsMoving: number,
): IncrementalStrategy {
  const dataPlaneHops = hops.filter((hop) => [...deferral.movesIn.values()].some((moves) => moves.includes(hop)));
  const deferredSteps = [...deferral.deferrableTo.values()].reduce((sum, map) => sum + map.size, 0);
  if (hops.length < 2 || deferredSteps === 0) {
    return {
      possible: false,
      dataPlaneHops: hops,
      savesMinutes: 0,
      note:
        hops.length < 2
          ? 'One hop: the data plane moves in it.'
          : `The skew policy (${SKEW_RULE_TEXT}) leaves no room: the data plane must move in every hop.`,
    };
  }
  return {
    possible: true,
    dataPlaneHops,
    savesMinutes: savedMinutes,
    note:
      `Under the skew policy (${SKEW_RULE_TEXT}) the data plane can wait and move only in ` +
      `${dataPlaneHops.length === 1 ? 'the' : 'these'} ${dataPlaneHops.join(', ')} hop${dataPlaneHops.length === 1 ? '' : 's'}: ` +
      `${deferredSteps} fewer data-plane rollout${deferredSteps === 1 ? '' : 's'} (${unitsMoving} unit${unitsMoving === 1 ? '' : 's'} of compute), saving ${formatMinutes(savedMinutes)} of node replacements. ` +
      'Steps marked "can wait" are the ones it skips; as listed, the plan still moves the data plane every hop.',
  };
}
