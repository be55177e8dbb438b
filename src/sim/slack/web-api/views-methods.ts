import { createHash } from 'node:crypto';
import { checkModalView, withGeneratedIds } from './block-kit-rules.js';
import type { FakeModal } from '../conversation-types.js';
import { stringArg } from '../parse-slack-body.js';
import { failure, type WebApiContext, type WebApiHandler } from './web-api-context.js';

/** A view as Slack stores and returns it: the app's fields plus id, hash, state and generated block ids. */
export function toStoredView(
  view: Record<string, unknown>,
  id: string,
  ctx: WebApiContext,
  previous?: Record<string, unknown>,
): Record<string, unknown> {
  const blocks = withGeneratedIds(view.blocks as unknown[] | undefined, ctx.nextId) ?? [];
  const hash = createHash('sha1').update(`${id}:${ctx.nextId()}`).digest('hex').slice(0, 24);
  return {
    id,
    team_id: ctx.workspace.teamId,
    type: 'modal',
    private_metadata: '',
    callback_id: '',
    external_id: '',
    clear_on_close: false,
    notify_on_close: false,
    ...view,
    blocks,
    state: { values: {} },
    hash: `${Math.floor(ctx.clock() / 1000)}.${hash}`,
    root_view_id: previous?.root_view_id ?? id,
    previous_view_id: null,
    app_id: ctx.workspace.appId,
    bot_id: ctx.workspace.botId,
  };
}

const open: WebApiHandler = (args, ctx) => {
  const view = args.view;
  const problems = checkModalView(view);
  if (problems.length > 0) return failure('invalid_arguments', { response_metadata: { messages: problems } });
  // Checked after the view: Slack validates arguments first, and a spent trigger must stay spent only on use.
  const context = ctx.tokens.consumeTrigger(args.trigger_id);
  if (!context) return failure('expired_trigger_id');
  const id = `V${String(ctx.nextId()).padStart(8, '0')}`;
  const stored = toStoredView(view as Record<string, unknown>, id, ctx);
  const modal: FakeModal = {
    id,
    user: context.user,
    view: stored,
    versions: [stored],
    openedAt: ctx.clock(),
    channel: context.channel,
    threadTs: context.threadTs,
    state: 'open',
  };
  ctx.conversation.addModal(modal);
  return { ok: true, view: stored };
};

function findModal(args: Record<string, unknown>, ctx: WebApiContext): FakeModal | undefined {
  const viewId = stringArg(args.view_id);
  if (viewId) return ctx.conversation.modal(viewId);
  const externalId = stringArg(args.external_id);
  return ctx.conversation.modals().find((modal) => externalId !== undefined && modal.view.external_id === externalId);
}

/** Replaces a modal's view, as views.update and a `response_action: update` ack do. */
export function replaceModalView(modal: FakeModal, view: Record<string, unknown>, ctx: WebApiContext): void {
  const stored = toStoredView(view, modal.id, ctx, modal.view);
  modal.view = stored;
  modal.versions.push(stored);
  modal.errors = undefined;
  ctx.conversation.changed();
}

const update: WebApiHandler = (args, ctx) => {
  const modal = findModal(args, ctx);
  if (!modal) return failure('not_found');
  const hash = stringArg(args.hash);
  if (hash !== undefined && hash !== modal.view.hash) return failure('hash_conflict');
  const problems = checkModalView(args.view);
  if (problems.length > 0) return failure('invalid_arguments', { response_metadata: { messages: problems } });
  replaceModalView(modal, args.view as Record<string, unknown>, ctx);
  return { ok: true, view: modal.view };
};

export const viewsMethods: Record<string, WebApiHandler> = {
  'views.open': open,
  'views.update': update,
};
