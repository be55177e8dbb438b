import type { App } from '@slack/bolt';
import { defineAction, defineSubmission, type ActionDeps } from './define-action.js';

/**
 * Bolt runs every listener whose constraint matches and nothing for an id no listener matches: Slack then waits its
 * 3 s, gets a 404 from the receiver and shows the button as failed. That is what cards posted by an older version
 * (after a deploy renamed an action) and junk payloads would meet. So the registrations are recorded as they are
 * made, and a fallback acks every other id at once and says so, staying silent for the ids a real listener owns.
 */
type Constraint = string | RegExp | { action_id?: string | RegExp; callback_id?: string | RegExp };

export interface ListenerIds {
  /** The app to register listeners on; `action` and `view` registrations are recorded on the way through. */
  app: App;
  isKnownAction(actionId: string): boolean;
  isKnownView(callbackId: string): boolean;
}

export function recordListenerIds(app: App): ListenerIds {
  const actions: Constraint[] = [];
  const views: Constraint[] = [];
  const recording = new Proxy(app, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'action' && property !== 'view') return typeof value === 'function' ? value.bind(target) : value;
      const into = property === 'action' ? actions : views;
      return (constraint: Constraint, ...listeners: unknown[]) => {
        into.push(constraint);
        return (value as (...args: unknown[]) => unknown).call(target, constraint, ...listeners);
      };
    },
  });
  const matches = (constraints: Constraint[], key: 'action_id' | 'callback_id', id: string) =>
    constraints.some((constraint) => {
      const pattern = typeof constraint === 'string' || constraint instanceof RegExp ? constraint : constraint[key];
      if (pattern === undefined) return true;
      return typeof pattern === 'string' ? pattern === id : pattern.test(id);
    });
  return {
    app: recording,
    isKnownAction: (id) => matches(actions, 'action_id', id),
    isKnownView: (id) => matches(views, 'callback_id', id),
  };
}

export function registerUnknownActionFallbacks(ids: ListenerIds, app: App, kit: ActionDeps): void {
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
