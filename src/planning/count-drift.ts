import type { KubeObject } from '../ports/kube-port.js';
import {
  createdAt,
  imageOfClaim,
  isClaimDisrupting,
  isClaimReady,
  isConditionTrue,
  kubeletMinorOf,
  nodeNameOfClaim,
  pendingConditions,
  poolOfClaim,
} from './karpenter-objects.js';

/**
 * Where one NodePool's drift stands, from the NodeClaims and Nodes the watcher holds. Pure.
 * - old: NodeClaims launched on an image that is not the target (recorded at the start, plus any launched on an
 *   old image since, e.g. scaled up before the EC2NodeClass changed); the set only grows.
 * - replaced: old claims that are gone. Karpenter deletes an old claim only once its replacement is initialized.
 * - in flight: old claims being taken away now (chosen for disruption, tainted, or deleting).
 * - launching: new claims not Ready yet (the replacements).
 * - complete: no old claim is left and every claim of the pool is on the target and Ready.
 */
export interface DriftCounts {
  pool: string;
  oldClaims: string[];
  total: number;
  replaced: number;
  drifted: number;
  /** Drifted old claims not yet being replaced (waiting for the budget or blocked). */
  queued: number;
  inFlight: number;
  launching: number;
  /** Nodes of old claims tainted for disruption right now. */
  disruptedNodes: string[];
  /** New claims that have not become Ready within the timeout: name, node (if any), what is missing. */
  notReady: Array<{ claim: string; node?: string; ageMs: number; pending: string[] }>;
  complete: boolean;
}

export interface DriftInput {
  pool: string;
  claims: KubeObject[];
  nodes: KubeObject[];
  /** Old claims known so far (from step state). */
  oldClaims: string[];
  targetAmis: string[];
  target: string;
  now: number;
  readyTimeoutMs: number;
}

/** On the target: launched from a target image, or (when the image is not one we resolved) running the target kubelet. */
export function isClaimAtTarget(claim: KubeObject, node: KubeObject | undefined, targetAmis: string[], target: string): boolean {
  const image = imageOfClaim(claim);
  if (image && targetAmis.includes(image)) return true;
  return kubeletMinorOf(node) === target;
}

export function countDrift(input: DriftInput): DriftCounts {
  const nodesByName = new Map(input.nodes.map((node) => [node.metadata.name, node]));
  const claims = input.claims.filter((claim) => poolOfClaim(claim) === input.pool);
  const present = new Set(claims.map((claim) => claim.metadata.name));
  const old = new Set(input.oldClaims);
  const nodeOf = (claim: KubeObject) => {
    const name = nodeNameOfClaim(claim);
    return name ? nodesByName.get(name) : undefined;
  };
  for (const claim of claims) {
    // A claim without an image has not launched yet: it is a replacement (or new capacity), never an old one.
    if (imageOfClaim(claim) && !isClaimAtTarget(claim, nodeOf(claim), input.targetAmis, input.target)) old.add(claim.metadata.name);
  }

  let drifted = 0;
  let queued = 0;
  let inFlight = 0;
  let launching = 0;
  const disruptedNodes: string[] = [];
  const notReady: DriftCounts['notReady'] = [];
  let allOnTarget = true;
  for (const claim of claims) {
    const node = nodeOf(claim);
    if (old.has(claim.metadata.name)) {
      allOnTarget = false;
      const disrupting = isClaimDisrupting(claim, node);
      if (isConditionTrue(claim, 'Drifted')) {
        drifted += 1;
        if (!disrupting) queued += 1;
      }
      if (disrupting) {
        inFlight += 1;
        if (node) disruptedNodes.push(node.metadata.name);
      }
      continue;
    }
    if (claim.metadata.deletionTimestamp) continue; // a replacement Karpenter gave up on; it is going away
    if (!isClaimReady(claim)) {
      allOnTarget = false;
      launching += 1;
      const ageMs = input.now - createdAt(claim, input.now);
      if (ageMs >= input.readyTimeoutMs) {
        notReady.push({ claim: claim.metadata.name, node: nodeNameOfClaim(claim), ageMs, pending: pendingConditions(claim) });
      }
      continue;
    }
    if (!isClaimAtTarget(claim, node, input.targetAmis, input.target)) allOnTarget = false;
  }
  const oldClaims = [...old].sort();
  const replaced = oldClaims.filter((name) => !present.has(name)).length;
  return {
    pool: input.pool,
    oldClaims,
    total: oldClaims.length,
    replaced,
    drifted,
    queued,
    inFlight,
    launching,
    disruptedNodes: disruptedNodes.sort(),
    notReady,
    complete: allOnTarget && replaced === oldClaims.length,
  };
}

/** "NodeClaims replaced 3/10, 1 in flight, 2 drifted" (+ per pool when there are several). */
export function formatDriftProgress(counts: DriftCounts[]): string {
  const sum = (pick: (c: DriftCounts) => number) => counts.reduce((total, c) => total + pick(c), 0);
  const parts = [`NodeClaims replaced ${sum((c) => c.replaced)}/${sum((c) => c.total)}`];
  const inFlight = sum((c) => c.inFlight);
  const launching = sum((c) => c.launching);
  const waiting = sum((c) => c.queued);
  if (inFlight > 0) parts.push(`${inFlight} in flight`);
  if (launching > 0) parts.push(`${launching} launching`);
  if (waiting > 0) parts.push(`${waiting} drifted, waiting`);
  const text = parts.join(', ');
  if (counts.length < 2) return text;
  return `${text} (${counts.map((c) => `${c.pool} ${c.replaced}/${c.total}`).join(', ')})`;
}
