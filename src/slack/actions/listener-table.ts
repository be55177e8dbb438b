import type { AllMiddlewareArgs, App, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';

/**
 * The bot's buttons and modals as two Bolt listeners, not one each. Bolt runs every request — each slash command
 * too — through the middleware chain of every listener registered, each chain bailing out on a request of another
 * kind; with a listener per button and modal (about twenty) that was a quarter of the web process's CPU per command
 * (bench P1, 7 December: 2.5 → 1.85 ms a command without them). Here the registrations are kept in a table, and one
 * action listener and one view listener run, for each click or submission, every registered listener whose id
 * matches, as Bolt itself would: in the order registered, all at once, an id matched as Bolt matches it (a string
 * exactly, a RegExp by `String.prototype.match`), a view only as a `view_submission`, and a failure passed on to the
 * app's error handler (Bolt's own: one error as it is, several together).
 *
 * The table also knows which ids a listener answers, for the fallback that answers any other id at once
 * (unknown-actions.ts): registrations through `app` count as known, those through `fallbacks` do not.
 */
type Constraint = string | RegExp | { action_id?: string | RegExp; callback_id?: string | RegExp };
type Args = (SlackActionMiddlewareArgs | SlackViewMiddlewareArgs) & AllMiddlewareArgs;
type Listener = (args: Args) => Promise<void> | void;
type Kind = 'action' | 'view';

interface Entry {
  constraint: Constraint;
  listener: Listener;
  known: boolean;
}

export interface ListenerTable {
  /** Register buttons (`action`) and modals (`view`) here: one listener each, as with Bolt's App. */
  app: App;
  /** The same, for listeners whose ids do not count as known (the unknown-id fallbacks). */
  fallbacks: App;
  isKnownAction(actionId: string): boolean;
  isKnownView(callbackId: string): boolean;
  /** Registers the two Bolt listeners that run the table; once every listener is in it. */
  install(): void;
}

export function createListenerTable(app: App): ListenerTable {
  const entries: Record<Kind, Entry[]> = { action: [], view: [] };
  const recorder = (known: boolean) =>
    new Proxy(app, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'action' && property !== 'view') return typeof value === 'function' ? value.bind(target) : value;
        return (constraint: Constraint, ...listeners: Listener[]) => {
          if (listeners.length !== 1) throw new Error(`register one listener per ${property} (got ${listeners.length})`);
          entries[property].push({ constraint, listener: listeners[0], known });
        };
      },
    });
  const keyOf = { action: 'action_id', view: 'callback_id' } as const;
  const matches = (kind: Kind, constraint: Constraint, id: string): boolean => {
    const pattern = typeof constraint === 'string' || constraint instanceof RegExp ? constraint : constraint[keyOf[kind]];
    if (pattern === undefined) return true;
    return typeof pattern === 'string' ? pattern === id : id.match(pattern) !== null;
  };
  const dispatch = async (kind: Kind, id: string, args: Args): Promise<void> => {
    const matched = entries[kind].filter((entry) => matches(kind, entry.constraint, id));
    const results = await Promise.allSettled(matched.map(async (entry) => entry.listener(args)));
    const failed = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (failed.length === 1) throw failed[0];
    if (failed.length > 1) throw new AggregateError(failed, `${failed.length} listeners of ${kind} ${id} failed`);
  };
  const known = (kind: Kind, id: string) => entries[kind].some((entry) => entry.known && matches(kind, entry.constraint, id));
  return {
    app: recorder(true),
    fallbacks: recorder(false),
    isKnownAction: (id) => known('action', id),
    isKnownView: (id) => known('view', id),
    install() {
      app.action(/[\s\S]*/, (args) => dispatch('action', 'action_id' in args.action ? String(args.action.action_id) : '', args as Args));
      app.view({ callback_id: /[\s\S]*/, type: 'view_submission' }, (args) => dispatch('view', args.view.callback_id, args as Args));
    },
  };
}
