/**
 * What the fake Slack remembers about a conversation: the messages the bot posted (with every edit), the
 * ephemerals each user saw, files, modals, and what people did (commands typed, buttons clicked, modals submitted).
 * Tests assert on these; `renderConversation` prints them.
 */

export interface MessageContent {
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
}

export interface MessageVersion extends MessageContent {
  at: number;
}

/** Where a message came from: a Web API call, a response_url POST, the HTTP answer (ack) to a command. */
export type MessageSource = 'chat.postMessage' | 'files.completeUploadExternal' | 'response_url' | 'ack';

export interface FakeFile {
  id: string;
  name: string;
  title: string;
  /** Declared at files.getUploadURLExternal time. */
  length: number;
  /** The uploaded bytes; undefined until the upload POST arrives. */
  content?: Buffer;
  /** UTF-8 text of the content ('' before upload). */
  text: string;
  /** Number of lines of the text, as the conversation view shows it. */
  lines: number;
  channel?: string;
  threadTs?: string;
  /** ts of the message that shared it (files.completeUploadExternal). */
  messageTs?: string;
  createdAt: number;
}

export interface FakeMessage extends MessageContent {
  channel: string;
  ts: string;
  /** Parent ts for thread replies; undefined for top-level messages. */
  threadTs?: string;
  /** The bot user for bot posts. */
  user: string;
  username?: string;
  metadata?: unknown;
  source: MessageSource;
  postedAt: number;
  /** Every version, oldest first; the last one is what the message shows now (also mirrored in text/blocks). */
  versions: MessageVersion[];
  editedAt?: number;
  deleted: boolean;
  replyBroadcast: boolean;
  reactions: string[];
  files: FakeFile[];
  /** Thread replies in posting order (top-level messages only). */
  replies: FakeMessage[];
}

export interface FakeEphemeral extends MessageContent {
  channel: string;
  /** The one user who sees it. */
  user: string;
  /** `message_ts` as chat.postEphemeral returns it; used as the container ts when a button on it is clicked. */
  ts: string;
  threadTs?: string;
  source: 'chat.postEphemeral' | 'response_url' | 'ack' | 'slack';
  at: number;
  versions: MessageVersion[];
  deleted: boolean;
}

export interface FakeModal {
  id: string;
  user: string;
  /** The current view (after views.update / response_action update), with Slack's added fields. */
  view: Record<string, unknown>;
  versions: Array<Record<string, unknown>>;
  openedAt: number;
  /** Where the interaction that opened it happened, so the conversation view can show it in place. */
  channel?: string;
  threadTs?: string;
  state: 'open' | 'submitted' | 'closed';
  /** Errors returned by the last `response_action: errors` ack, keyed by block_id. */
  errors?: Record<string, string>;
}

export type ConversationEntry =
  | { kind: 'command'; channel: string; user: string; command: string; text: string; at: number }
  | { kind: 'message'; message: FakeMessage }
  | { kind: 'ephemeral'; ephemeral: FakeEphemeral }
  | {
      kind: 'click';
      channel: string;
      threadTs?: string;
      user: string;
      label: string;
      actionId: string;
      messageTs: string;
      at: number;
    }
  | { kind: 'modal-opened'; modal: FakeModal; at: number }
  | {
      kind: 'modal-submitted';
      modal: FakeModal;
      user: string;
      /** label → what was entered. */
      values: Record<string, string>;
      /** Set when the bot refused the input (`response_action: errors`); the modal then stays open. */
      errors?: Record<string, string>;
      at: number;
    };
