import { EventEmitter } from 'node:events';
import type {
  ConversationEntry,
  FakeEphemeral,
  FakeFile,
  FakeMessage,
  FakeModal,
  MessageContent,
  MessageSource,
} from './conversation-types.js';

export interface PostMessageInput extends MessageContent {
  channel: string;
  threadTs?: string;
  user: string;
  username?: string;
  metadata?: unknown;
  replyBroadcast?: boolean;
  files?: FakeFile[];
  source: MessageSource;
}

export interface PostEphemeralInput extends MessageContent {
  channel: string;
  user: string;
  threadTs?: string;
  source: FakeEphemeral['source'];
}

export type SlackConversation = ReturnType<typeof createSlackConversation>;

/**
 * The in-memory Slack workspace: messages, threads, ephemerals, files and modals, in the order they happened.
 * Every mutation emits 'change' so waiters (FakeSlack.waitFor) wake up without polling.
 */
export function createSlackConversation(opts: { clock: () => number }) {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const entries: ConversationEntry[] = [];
  const topLevel: FakeMessage[] = [];
  const byKey = new Map<string, FakeMessage>();
  const ephemerals: FakeEphemeral[] = [];
  const files = new Map<string, FakeFile>();
  const modals = new Map<string, FakeModal>();
  let lastMicros = 0;

  const changed = () => events.emit('change');
  const key = (channel: string, ts: string) => `${channel}/${ts}`;

  /** Slack ts: epoch seconds with 6 decimals, unique and strictly increasing across the workspace. */
  function nextTs(): string {
    lastMicros = Math.max(Math.floor(opts.clock() * 1000), lastMicros + 1);
    return `${Math.floor(lastMicros / 1e6)}.${String(lastMicros % 1e6).padStart(6, '0')}`;
  }

  function postMessage(input: PostMessageInput): FakeMessage {
    const at = opts.clock();
    const content = { text: input.text, blocks: input.blocks, attachments: input.attachments };
    const message: FakeMessage = {
      ...content,
      channel: input.channel,
      ts: nextTs(),
      threadTs: input.threadTs,
      user: input.user,
      username: input.username,
      metadata: input.metadata,
      source: input.source,
      postedAt: at,
      versions: [{ ...content, at }],
      deleted: false,
      replyBroadcast: input.replyBroadcast ?? false,
      reactions: [],
      files: input.files ?? [],
      replies: [],
    };
    const parent = input.threadTs ? byKey.get(key(input.channel, input.threadTs)) : undefined;
    if (parent) parent.replies.push(message);
    else topLevel.push(message);
    byKey.set(key(message.channel, message.ts), message);
    entries.push({ kind: 'message', message });
    changed();
    return message;
  }

  /** Applies an edit; fields left undefined keep their previous value (chat.update keeps blocks unless given). */
  function updateMessage(target: FakeMessage | FakeEphemeral, content: Partial<MessageContent>): void {
    const at = opts.clock();
    if (content.text !== undefined) target.text = content.text;
    if (content.blocks !== undefined) target.blocks = content.blocks;
    if (content.attachments !== undefined) target.attachments = content.attachments;
    target.versions.push({ text: target.text, blocks: target.blocks, attachments: target.attachments, at });
    if ('postedAt' in target) target.editedAt = at;
    changed();
  }

  function deleteMessage(target: FakeMessage | FakeEphemeral): void {
    target.deleted = true;
    changed();
  }

  function postEphemeral(input: PostEphemeralInput): FakeEphemeral {
    const at = opts.clock();
    const content = { text: input.text, blocks: input.blocks, attachments: input.attachments };
    const ephemeral: FakeEphemeral = {
      ...content,
      channel: input.channel,
      user: input.user,
      ts: nextTs(),
      threadTs: input.threadTs,
      source: input.source,
      at,
      versions: [{ ...content, at }],
      deleted: false,
    };
    ephemerals.push(ephemeral);
    entries.push({ kind: 'ephemeral', ephemeral });
    changed();
    return ephemeral;
  }

  function record(entry: ConversationEntry): void {
    entries.push(entry);
    changed();
  }

  return {
    events,
    entries: entries as readonly ConversationEntry[],
    nextTs,
    postMessage,
    updateMessage,
    deleteMessage,
    postEphemeral,
    record,
    changed,
    /** A message (top-level or reply) by channel and ts. */
    findMessage: (channel: string, ts: string): FakeMessage | undefined => byKey.get(key(channel, ts)),
    /** A message by ts in any channel (ts are unique across the fake workspace). */
    findMessageByTs: (ts: string): FakeMessage | undefined => [...byKey.values()].find((m) => m.ts === ts),
    findEphemeral: (ts: string): FakeEphemeral | undefined => ephemerals.find((e) => e.ts === ts),
    addFile(file: FakeFile): void {
      files.set(file.id, file);
      changed();
    },
    file: (id: string): FakeFile | undefined => files.get(id),
    addModal(modal: FakeModal): void {
      modals.set(modal.id, modal);
      record({ kind: 'modal-opened', modal, at: modal.openedAt });
    },
    modal: (id: string): FakeModal | undefined => modals.get(id),
    /** Top-level messages (optionally of one channel), each with its replies, edits applied. */
    messages: (channel?: string): FakeMessage[] => topLevel.filter((m) => channel === undefined || m.channel === channel),
    ephemerals: (user?: string): FakeEphemeral[] => ephemerals.filter((e) => user === undefined || e.user === user),
    files: (): FakeFile[] => [...files.values()],
    modals: (): FakeModal[] => [...modals.values()],
  };
}
