/**
 * What a plan card says about its own inputs besides the findings: how old the upgrade insights are ("insights as
 * of …", and whether they were refreshed for this plan) and which waivers were counted (clusters.yaml alone when
 * the Slack waivers in Redis could not be read).
 */
export interface PlanContext {
  /** ISO time of the oldest insight scan the plan used. */
  insightsAsOf?: string;
  /** "refreshed for this plan", or why a refresh was not had. */
  insightsNote?: string;
  waiverNote?: string;
}
