import type { FakeEphemeral, FakeFile, FakeMessage, FakeModal } from './conversation-types.js';
import type { Workspace } from './web-api/web-api-context.js';

/**
 * What a Slack client (the playground page) is told about the conversation: one event per message, ephemeral or
 * modal that is new or changed since the client last heard, in the order they happened (a thread's parent before
 * its replies). Each event carries the item whole, as it shows now, so the client simply replaces what it had.
 */
export interface FeedFile {
  id: string;
  name: string;
  title: string;
  lines: number;
  /** Path on the fake Slack server, /files/<id>/<name>; empty until the bytes are uploaded. */
  path: string;
}

export type FeedEvent =
  | {
      type: 'message';
      channel: string;
      ts: string;
      threadTs?: string;
      user: string;
      username?: string;
      text: string;
      blocks?: unknown[];
      edited: boolean;
      deleted: boolean;
      replyCount: number;
      files: FeedFile[];
      postedAt: number;
    }
  | {
      type: 'ephemeral';
      channel: string;
      /** The one user who sees it. */
      user: string;
      ts: string;
      threadTs?: string;
      text: string;
      blocks?: unknown[];
      deleted: boolean;
      /** 'slack' for Slack's own notices (the app did not answer in time). */
      source: FakeEphemeral['source'];
      at: number;
    }
  | {
      type: 'view';
      id: string;
      user: string;
      view: Record<string, unknown>;
      state: FakeModal['state'];
      errors?: Record<string, string>;
      channel?: string;
      threadTs?: string;
    };

export interface FeedWorkspace {
  type: 'workspace';
  botUserId: string;
  botName: string;
  teamDomain: string;
  users: Record<string, string>;
  channels: Record<string, string>;
}

export interface FeedSource {
  messages(): FakeMessage[];
  ephemerals(): FakeEphemeral[];
  modals(): FakeModal[];
}

export function describeWorkspace(workspace: Workspace): FeedWorkspace {
  return {
    type: 'workspace',
    botUserId: workspace.botUserId,
    botName: workspace.botName,
    teamDomain: workspace.teamDomain,
    users: Object.fromEntries(workspace.userNames),
    channels: Object.fromEntries(workspace.channelNames),
  };
}

function feedFile(file: FakeFile): FeedFile {
  const uploaded = file.content !== undefined;
  return {
    id: file.id,
    name: file.name,
    title: file.title,
    lines: file.lines,
    path: uploaded ? `/files/${file.id}/${encodeURIComponent(file.name)}` : '',
  };
}

function messageEvent(message: FakeMessage): FeedEvent {
  return {
    type: 'message',
    channel: message.channel,
    ts: message.ts,
    threadTs: message.threadTs,
    user: message.user,
    username: message.username,
    text: message.text,
    blocks: message.blocks,
    edited: message.editedAt !== undefined,
    deleted: message.deleted,
    replyCount: message.replies.filter((reply) => !reply.deleted).length,
    files: message.files.map(feedFile),
    postedAt: message.postedAt,
  };
}

/**
 * Remembers what one client has been sent (a fingerprint per item) and returns only what changed since: a
 * fingerprint is cheap (version counts, flags), so a busy thread costs a walk of the conversation, not a diff.
 */
export function createFeedTracker() {
  const sent = new Map<string, string>();

  function changed(key: string, fingerprint: string): boolean {
    if (sent.get(key) === fingerprint) return false;
    sent.set(key, fingerprint);
    return true;
  }

  return function changesSince(source: FeedSource): FeedEvent[] {
    const events: FeedEvent[] = [];
    for (const parent of source.messages()) {
      for (const message of [parent, ...parent.replies]) {
        const files = message.files.map((f) => `${f.id}:${f.content?.length ?? -1}`).join(',');
        const fingerprint = `${message.versions.length}|${message.deleted}|${message.replies.length}|${files}`;
        if (changed(`m:${message.channel}/${message.ts}`, fingerprint)) events.push(messageEvent(message));
      }
    }
    for (const ephemeral of source.ephemerals()) {
      if (changed(`e:${ephemeral.ts}`, `${ephemeral.versions.length}|${ephemeral.deleted}`)) {
        const { channel, user, ts, threadTs, text, blocks, deleted, source, at } = ephemeral;
        events.push({ type: 'ephemeral', channel, user, ts, threadTs, text, blocks, deleted, source, at });
      }
    }
    for (const modal of source.modals()) {
      if (changed(`v:${modal.id}`, `${modal.versions.length}|${modal.state}|${JSON.stringify(modal.errors ?? null)}`)) {
        const { id, user, view, state, errors, channel, threadTs } = modal;
        events.push({ type: 'view', id, user, view, state, errors, channel, threadTs });
      }
    }
    return events;
  };
}
