import { readdirSync } from 'node:fs';
import { parseClustersConfig, type ClustersConfig } from '../../src/config/clusters-config.js';
import type { SimServer } from '@eks-upgrade-bot/sim';

/** The shipped scenarios and their clusters, for plan-announces-gates.test.ts and plan-announces-gates-job-case.ts. */
export const SCENARIOS = readdirSync(new URL('../../src/sim/scenarios/', import.meta.url)).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5)).sort();
export const people = { channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'] };

export function configFor(clusters: string[]): ClustersConfig {
  return parseClustersConfig({ clusters: clusters.map((name) => ({ name, region: 'us-west-2', ...people })) });
}

export function clustersOf(sim: SimServer): Array<{ name: string; version: string }> {
  return [...sim.world.clusters.entries()].map(([name, cluster]) => ({ name, version: (cluster as unknown as { version: string }).version }));
}
