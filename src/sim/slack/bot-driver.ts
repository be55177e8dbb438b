import type { FakeEphemeral, FakeMessage } from './conversation-types.js';
import type { DeliveryResult } from './deliver-to-bot.js';
import type { Delivery, FakeSlackState } from './fake-slack-state.js';
import type { InteractionContext } from './interaction-tokens.js';
import {
  buildBlockActionsPayload,
  buildSlashCommandBody,
  encodePayload,
  findButton,
  listButtons,
} from './interaction-payloads.js';
import { applyResponseMessage } from './web-api/response-messages.js';
import { envelopeOf } from './socket-mode.js';
import { signSlackRequest, type SlackSignatureHeaders } from './sign-slack-request.js';
import { buildViewState, buildViewSubmissionPayload, type ModalInputValues } from './view-submission-payload.js';
import { replaceModalView } from './web-api/views-methods.js';
import { channelName, toApiMessage, userName } from './web-api/web-api-context.js';

export interface SlashCommandInput {
  text: string;
  userId: string;
  channelId: string;
  command?: string;
}

export interface ClickButtonInput {
  userId: string;
  channelId: string;
  /** ts of the message (or message_ts of the ephemeral) carrying the button. */
  messageTs: string;
  /** Find the button by action_id… */
  actionId?: string;
  /** …and/or by its visible text ("Continue"). */
  text?: string;
  /** Narrows the match when several buttons share an action_id. */
  value?: string;
  /** Click a button of an earlier version of the message (0 = as first posted): a stale card on a slow client. */
  version?: number;
  /** For buttons with a confirm dialog: false = the user presses "Cancel" and nothing is sent. Default true. */
  confirm?: boolean;
  stateValues?: Record<string, unknown>;
}

export interface SubmitViewInput {
  userId: string;
  /** The modal's view id; default: the latest open modal of this user (with this callback_id when given). */
  viewId?: string;
  callbackId?: string;
  /** Inputs, keyed by block_id, action_id or label; a string or a list for multi-selects/checkboxes. */
  values?: ModalInputValues;
}

export interface BotInteractionResult extends DeliveryResult {
  responseUrl: string;
  triggerId: string;
}

export interface ViewSubmissionResult extends DeliveryResult {
  /** Errors the bot returned with `response_action: errors`, keyed by block_id (the modal stays open). */
  errors?: Record<string, string>;
}

/** Everything that makes the fake act like a user in Slack: typing commands, clicking, submitting modals. */
export function createBotDriver(state: FakeSlackState) {
  const { conversation, tokens, ctx } = state;
  const workspace = ctx.workspace;

  async function deliver(kind: Delivery['kind'], body: string, headers?: Record<string, string>): Promise<DeliveryResult> {
    if (state.socketModeEnabled && kind !== 'raw') {
      // Socket Mode: the same request as an envelope on the bot's WebSocket, acked with its envelope_id.
      const { type, payload } = envelopeOf(body);
      const result = await state.socketMode.send(type, payload);
      state.deliveries.push({ kind, request: body, status: result.status, response: result.body, ackMs: result.ackMs, at: state.clock() });
      conversation.changed();
      return result;
    }
    if (!state.botEventsUrl) {
      throw new Error('sending a request to the bot: no botEventsUrl; pass it to startFakeSlack or call setBotEventsUrl()');
    }
    const result = await state.deliverToBot({
      url: state.botEventsUrl,
      body,
      headers,
      signingSecret: headers ? undefined : state.signingSecret,
      timeoutMs: state.ackTimeoutMs,
    });
    state.deliveries.push({ kind, request: body, status: result.status, response: result.body, ackMs: result.ackMs, at: state.clock() });
    conversation.changed();
    return result;
  }

  /** What Slack shows the user when the app did not answer 200 in time. */
  function slackError(context: InteractionContext, what: string, result: DeliveryResult): void {
    const error = result.status === 0 ? result.body : 'dispatch_failed';
    conversation.postEphemeral({
      channel: context.channel, user: context.user, threadTs: context.threadTs, source: 'slack',
      text: `${what} failed with the error "${error}"`,
    });
  }

  async function sendSlashCommand(input: SlashCommandInput): Promise<BotInteractionResult> {
    const command = input.command ?? '/eks-upgrade';
    const context: InteractionContext = { channel: input.channelId, user: input.userId };
    const responseUrl = tokens.issueResponseUrl(context);
    const triggerId = tokens.issueTrigger(context);
    conversation.record({ kind: 'command', channel: input.channelId, user: input.userId, command, text: input.text, at: state.clock() });
    const body = buildSlashCommandBody({
      teamId: workspace.teamId, teamDomain: workspace.teamDomain, apiAppId: workspace.appId,
      channelId: input.channelId, channelName: channelName(workspace, input.channelId),
      userId: input.userId, userName: userName(workspace, input.userId),
      command, text: input.text, responseUrl, triggerId,
    });
    const result = await deliver('slash_command', body);
    if (result.status !== 200) slackError(context, command, result);
    else if (result.body.trim() !== '') {
      // Slack shows a command's HTTP answer like a response_url message (ephemeral unless in_channel).
      const responseState = tokens.responseUrlState(responseUrl);
      if (responseState) applyResponseMessage(ctx, responseState, parseAck(result.body), 'ack');
    }
    return { ...result, responseUrl, triggerId };
  }

  async function clickButton(input: ClickButtonInput): Promise<BotInteractionResult> {
    const message = conversation.findMessage(input.channelId, input.messageTs);
    const ephemeral = message ? undefined : conversation.findEphemeral(input.messageTs);
    const target: FakeMessage | FakeEphemeral | undefined = message ?? ephemeral;
    if (!target || target.deleted) {
      throw new Error(`clicking a button: no message ${input.messageTs} in ${input.channelId} (deleted or never posted)`);
    }
    const blocks = input.version === undefined ? target.blocks : target.versions[input.version]?.blocks;
    const button = findButton(blocks, { actionId: input.actionId, text: input.text, value: input.value });
    if (!button) {
      const available = listButtons(blocks).map((b) => `"${b.label}" (${String(b.element.action_id)})`).join(', ') || 'none';
      const wanted = input.text ?? input.actionId ?? '?';
      throw new Error(`clicking a button: message ${input.messageTs} has no button "${wanted}"; buttons: ${available}`);
    }
    const threadTs = target.threadTs;
    const origin = message
      ? { kind: 'message' as const, channel: message.channel, ts: message.ts }
      : { kind: 'ephemeral' as const, ts: input.messageTs };
    const context: InteractionContext = { channel: input.channelId, user: input.userId, threadTs, origin };
    const responseUrl = tokens.issueResponseUrl(context);
    const triggerId = tokens.issueTrigger(context);
    if (button.element.confirm && input.confirm === false) {
      return { status: 0, body: 'cancelled', ackMs: 0, responseUrl, triggerId };
    }
    conversation.record({
      kind: 'click', channel: input.channelId, threadTs, user: input.userId, label: button.label,
      actionId: String(button.element.action_id ?? ''), messageTs: input.messageTs, at: state.clock(),
    });
    const payload = buildBlockActionsPayload({
      teamId: workspace.teamId, teamDomain: workspace.teamDomain, apiAppId: workspace.appId,
      user: { id: input.userId, name: userName(workspace, input.userId) },
      channel: { id: input.channelId, name: channelName(workspace, input.channelId) },
      message: message ? toApiMessage(message, workspace) : undefined,
      messageTs: input.messageTs, threadTs, isEphemeral: !message, button,
      actionTs: conversation.nextTs(), responseUrl, triggerId, stateValues: input.stateValues,
    });
    const result = await deliver('block_actions', encodePayload(payload));
    if (result.status !== 200) slackError(context, `[ ${button.label} ]`, result);
    return { ...result, responseUrl, triggerId };
  }

  async function submitView(input: SubmitViewInput): Promise<ViewSubmissionResult> {
    const modal = input.viewId
      ? conversation.modal(input.viewId)
      : conversation.modals().filter((m) => m.user === input.userId && m.state === 'open'
        && (input.callbackId === undefined || m.view.callback_id === input.callbackId)).at(-1);
    if (!modal || modal.state !== 'open') {
      throw new Error(`submitting a modal: no open modal ${input.viewId ?? input.callbackId ?? ''} for ${input.userId}`);
    }
    const viewState = buildViewState(modal.view, input.values ?? {});
    const triggerId = tokens.issueTrigger({ channel: modal.channel ?? '', user: input.userId, threadTs: modal.threadTs });
    const payload = buildViewSubmissionPayload({
      teamId: workspace.teamId, teamDomain: workspace.teamDomain, apiAppId: workspace.appId,
      user: { id: input.userId, name: userName(workspace, input.userId) },
      view: modal.view, stateValues: viewState.values, triggerId,
    });
    const result = await deliver('view_submission', encodePayload(payload));
    if (result.status !== 200) return result;
    const ack = result.body.trim() === '' ? {} : parseAck(result.body);
    const errors = ack.response_action === 'errors' ? (ack.errors as Record<string, string>) : undefined;
    conversation.record({ kind: 'modal-submitted', modal, user: input.userId, values: viewState.display, errors, at: state.clock() });
    if (errors) modal.errors = errors;
    else if (ack.response_action === 'update' && ack.view) replaceModalView(modal, ack.view as Record<string, unknown>, ctx);
    else modal.state = ack.response_action === 'push' ? 'open' : 'submitted';
    conversation.changed();
    return { ...result, errors };
  }

  return {
    sendSlashCommand,
    clickButton,
    submitView,
    signRequest: (body: string, timestampSec?: number): SlackSignatureHeaders =>
      signSlackRequest(state.signingSecret, body, timestampSec),
    /** Sends exactly this body and these headers (no signing added): forged and stale signatures. */
    sendRaw: (input: { body: string; headers: Record<string, string> }): Promise<DeliveryResult> =>
      deliver('raw', input.body, input.headers),
  };
}

function parseAck(body: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // A plain-text answer is shown as the text of an ephemeral message.
  }
  return { text: body };
}
