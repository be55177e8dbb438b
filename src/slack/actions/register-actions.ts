import type { App } from '@slack/bolt';
import type { ActionDeps } from './define-action.js';
import { registerGateActions } from './gate-actions.js';
import { registerJobControlActions, registerTimelineAction } from './job-control-actions.js';
import { registerUnknownActionFallbacks } from './unknown-actions.js';
import { createListenerTable } from './listener-table.js';
import { registerWaiverActions } from './waiver-actions.js';
import { registerFleetActions } from './fleet-actions.js';
import { registerRollbackAction } from './rollback-action.js';
import { registerBreachRollbackAction } from './breach-rollback-action.js';

/**
 * Every button and modal the bot answers, each through define-action.ts: gate cards, the Force reason modal,
 * status-card job controls, waivers, the fleet digest, Roll back; then the fallback that answers any other button
 * or modal at once with a sentence instead of Slack's failed-button mark.
 */
export function registerActions(app: App, deps: ActionDeps): void {
  // Two Bolt listeners run them all (listener-table.ts): Bolt walks every listener's chain for every request.
  const ids = createListenerTable(app);
  registerGateActions(ids.app, deps);
  registerJobControlActions(ids.app, deps);
  registerTimelineAction(ids.app, deps);
  registerWaiverActions(ids.app, deps);
  if (deps.commands) registerFleetActions(ids.app, deps, deps.commands);
  if (deps.commands) registerRollbackAction(ids.app, deps, deps.commands);
  if (deps.commands) registerBreachRollbackAction(ids.app, deps, deps.commands);
  registerUnknownActionFallbacks(ids, deps);
  ids.install();
}
