import type { ListenerTable } from './listener-table.js';
import { defineAction, defineSubmission, type ActionDeps } from './define-action.js';

/**
 * Bolt runs every listener whose constraint matches and nothing for an id no listener matches: Slack then waits its
 * 3 s, gets a 404 from the receiver and shows the button as failed. That is what cards posted by an older version
 * (after a deploy renamed an action) and junk payloads would meet. So the listener table (listener-table.ts) knows
 * which ids a listener answers, and these fallbacks ack every other id at once and say so, staying silent for the ids
 * a real listener owns.
 */
export function registerUnknownActionFallbacks(ids: ListenerTable, kit: ActionDeps): void {
  const app = ids.fallbacks;
  // Nothing here reads: every id that reaches these is one no listener answers, so each is answered as unreadable.
  defineAction(app, kit, {
    id: /[\s\S]*/,
    skip: (id) => ids.isKnownAction(id),
    metric: 'unknown',
    read: () => undefined,
    logFields: (id) => ({ audit: 'unknown-action', actionId: id.slice(0, 100) }),
    unreadable: {
      log: 'click on a button this version does not answer',
      tell: 'This button belongs to a card this version of the bot no longer answers (it may predate an update); nothing was changed. `/eks-upgrade jobs` lists the current upgrades and their threads.',
    },
    act: async () => undefined,
  });
  defineSubmission(app, kit, {
    callbackId: /[\s\S]*/,
    skip: (id) => ids.isKnownView(id),
    metric: 'unknown-view',
    read: () => undefined,
    logFields: (id) => ({ audit: 'unknown-view', callbackId: id.slice(0, 100) }),
    unreadable: { log: 'submission of a modal this version does not answer' },
    act: async () => undefined,
  });
}
