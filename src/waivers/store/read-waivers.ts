import type { Waiver } from '../model/waiver-match.js';
import type { WaiverStore } from '../model/waiver-store.js';

/**
 * The Slack waivers a plan counts, with a sentence when they could not be had: the plan then runs on the
 * clusters.yaml waivers alone and says so rather than failing (a waiver can only make a plan less blocked, so
 * leaving Slack's out errs on the safe side).
 */
export interface WaiversForPlan {
  waivers: Waiver[];
  note?: string;
}

export const WITHOUT_SLACK_WAIVERS = 'Slack waivers not counted (Redis did not answer): clusters.yaml waivers only.';

export async function readWaiversForPlan(store: WaiverStore | undefined, cluster: string): Promise<WaiversForPlan> {
  if (!store) return { waivers: [], note: WITHOUT_SLACK_WAIVERS };
  try {
    return { waivers: await store.list(cluster) };
  } catch (error) {
    return { waivers: [], note: `Slack waivers not counted (reading them from Redis failed: ${(error as Error).message}): clusters.yaml waivers only.` };
  }
}
