import type { App } from '@slack/bolt';
import { registerGateActions, type ActionDeps } from './gate-actions.js';
import { registerJobControlActions, registerTimelineAction } from './job-control-actions.js';
import { registerWaiverActions } from './waiver-actions.js';

/** Every button and modal the bot answers: gate cards, the Force reason modal, status-card job controls, waivers. */
export function registerActions(app: App, deps: ActionDeps): void {
  registerGateActions(app, deps);
  registerJobControlActions(app, deps);
  registerTimelineAction(app, deps);
  registerWaiverActions(app, deps);
}
