import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { noticeOf, type NoticeLookup } from '../../src/planning/workloads/disruption-notices.js';
import { BLOCK_STALE_MS, describeBlockedOutcome, describeBlockedPool, noteBlocked, pruneBlocked, type BlockedBoard } from '../../src/planning/workloads/blocked-nodes.js';

const T0 = Date.UTC(2026, 0, 5, 12);
const lookup: NoticeLookup = {
  pools: new Set(['default']),
  since: T0,
  poolOfNode: () => 'default',
  poolOfClaim: () => 'default',
  nodeOfClaim: () => undefined,
};

function notice(reason: 'DisruptionBlocked' | 'FailedDraining', node: string, message: string) {
  const event: KubeObject = { metadata: { name: `${node}.1`, namespace: 'default' }, involvedObject: { kind: 'Node', name: node }, reason, message, source: { component: 'karpenter' }, lastTimestamp: new Date(T0 + 60_000).toISOString() };
  return noticeOf(event, lookup)!;
}

const pdbBlock = (node: string) => notice('DisruptionBlocked', node, 'Pdb prevents pod evictions (PodDisruptionBudget=[apps/app-pdb])');
const drainBlock = (node: string) => notice('FailedDraining', node, `Failed to drain node, evicting pod violates a PDB (Pod=apps/app-${node})`);

describe('the blocked nodes of a NodePool, as one message', () => {
  it('names the longest-blocked nodes first with their pods, folds the rest into "and N more", and says what to do once per cause', () => {
    const board: BlockedBoard = new Map();
    for (let i = 1; i <= 8; i++) noteBlocked(board, i % 2 ? pdbBlock(`ip-${i}`) : drainBlock(`ip-${i}`), i % 2 ? [`apps/a-${i}`, `apps/b-${i}`, `apps/c-${i}`, `apps/d-${i}`] : [`apps/app-ip-${i}`], T0 + i * 1_000);
    const text = describeBlockedPool('default', board, 11, 3);
    expect(text.split('\n')).toEqual([
      '8 nodes of NodePool default cannot be replaced now (11 nodes blocked so far; every notice is in the exported timeline):',
      '• Karpenter cannot replace node ip-1: Pdb prevents pod evictions (PodDisruptionBudget=[apps/app-pdb]) — blocking pods: apps/a-1, apps/b-1, apps/c-1 and 1 more',
      '• Karpenter cannot drain node ip-2: Failed to drain node, evicting pod violates a PDB (Pod=apps/app-ip-2) — blocking pods: apps/app-ip-2',
      '• Karpenter cannot replace node ip-3: Pdb prevents pod evictions (PodDisruptionBudget=[apps/app-pdb]) — blocking pods: apps/a-3, apps/b-3, apps/c-3 and 1 more',
      '… and 5 more nodes',
      'What to do: scale the workload up or relax its PodDisruptionBudget so one pod may go; Karpenter retries on its own. Pause holds the rollout meanwhile.',
    ]);
  });

  it('drops a node once it is replaced, or — for "cannot replace" — once Karpenter disrupts it after all; a stuck drain holds until the node is gone', () => {
    const board: BlockedBoard = new Map();
    noteBlocked(board, pdbBlock('ip-1'), [], T0);
    noteBlocked(board, drainBlock('ip-2'), [], T0);
    noteBlocked(board, pdbBlock('ip-3'), [], T0);
    const nodes: Record<string, { exists: boolean; disrupting: boolean }> = {
      'ip-1': { exists: true, disrupting: true },
      'ip-2': { exists: true, disrupting: true },
      'ip-3': { exists: false, disrupting: false },
    };
    pruneBlocked(board, (name) => nodes[name], T0);
    expect([...board.keys()]).toEqual(['ip-2']);
    expect(describeBlockedPool('default', new Map(), 3)).toBe('No node of NodePool default is blocked now (3 nodes blocked so far; every notice is in the exported timeline).');
  });

  it('forgets a block Karpenter stopped repeating while newer events came, and keeps the newest word per node', () => {
    const board: BlockedBoard = new Map();
    noteBlocked(board, pdbBlock('ip-1'), [], T0);
    noteBlocked(board, drainBlock('ip-1'), [], T0 + 5_000);
    noteBlocked(board, pdbBlock('ip-1'), [], T0 + 1_000);
    expect(board.get('ip-1')?.reason).toBe('FailedDraining');
    pruneBlocked(board, () => ({ exists: true, disrupting: false }), T0 + 5_000 + BLOCK_STALE_MS + 1);
    expect(board.size).toBe(0);
  });

  it('ends with what happened over the drift', () => {
    expect(describeBlockedOutcome('default', 0, 12, false)).toBe('No node is blocked any more (12 nodes of NodePool default were blocked during the drift; every notice is in the exported timeline).');
    expect(describeBlockedOutcome('default', 1, 1, true)).toBe('Aborted with 1 node still blocked (1 node of NodePool default was blocked during the drift; every notice is in the exported timeline).');
  });
});
