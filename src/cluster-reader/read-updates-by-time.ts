import type { Update } from '@aws-sdk/client-eks';
import type { EksPort } from '../ports/aws/eks-port.js';
import { createLimiter, type Limiter } from './bounded.js';

/**
 * A cluster's updates (or one node group's or add-on's), every one on record, described and ordered oldest first
 * by DescribeUpdate's `createdAt`. ListUpdates promises no order — in practice it is random
 * (aws/containers-roadmap#1439) — and pages with nextToken, so neither "the last ids" nor "the first page" means
 * "the latest": only `createdAt` does. The port follows every page; this describes every id, a few at a time.
 */
export async function readUpdatesByTime(
  eks: EksPort,
  cluster: string,
  options: { scope?: { nodegroupName?: string; addonName?: string }; run?: Limiter } = {},
): Promise<Update[]> {
  const run = options.run ?? createLimiter(5);
  const ids = await eks.listUpdates(cluster, options.scope);
  const updates = await Promise.all(ids.map((id) => run(() => eks.describeUpdate(cluster, id, options.scope))));
  return updates.sort((a, b) => createdAt(a) - createdAt(b) || String(a.id ?? '').localeCompare(String(b.id ?? '')));
}

function createdAt(update: Update): number {
  return update.createdAt ? new Date(update.createdAt).getTime() : 0;
}
