import type { ConversationEntry, FakeMessage } from './conversation-types.js';
import { renderBlocksAsText, renderMessageAsText } from './render-blocks-as-text.js';

/**
 * The fake Slack's conversation as a reader would scroll through it: commands typed, the bot's answers (ephemerals
 * marked "(only visible to you)"), channel messages in their latest version, each thread's replies indented under
 * its parent, files, button clicks and modals. Pure: the demo prints it, tests snapshot it.
 */

export interface RenderConversationOptions {
  /** Only this channel. */
  channel?: string;
  /** Name shown for the bot's messages (default "eks-upgrade"). */
  botName?: string;
  /** Prefix each entry with its clock time (UTC, HH:MM:SS); off by default so output is stable. */
  showTimes?: boolean;
}

const BODY_INDENT = '  ';
const THREAD_PREFIX = '  │ ';

export function renderConversation(entries: readonly ConversationEntry[], options: RenderConversationOptions = {}): string {
  const botName = options.botName ?? 'eks-upgrade';
  const visible = entries.filter((entry) => options.channel === undefined || locate(entry).channel === options.channel);
  const parents = new Set(
    visible.flatMap((entry) => (entry.kind === 'message' && !entry.message.threadTs ? [threadKey(entry.message)] : [])),
  );
  const threadOf = (entry: ConversationEntry): string | undefined => {
    const { channel, threadTs } = locate(entry);
    const key = `${channel}/${threadTs}`;
    return threadTs && parents.has(key) ? key : undefined;
  };

  const lines: string[] = [];
  let lastChannel: string | undefined;
  const multiChannel = new Set(visible.map((entry) => locate(entry).channel).filter(Boolean)).size > 1;
  // As Slack shows it: the channel in order, and a thread's replies where its first reply came, so what the
  // channel got before that (a "🚀 Started upgrading…" ephemeral after the parent card) is printed before the thread.
  const printed = new Set<string>();
  for (const entry of visible) {
    const thread = threadOf(entry);
    if (thread !== undefined) {
      if (printed.has(thread)) continue;
      printed.add(thread);
      for (const reply of visible.filter((candidate) => threadOf(candidate) === thread)) {
        lines.push(...renderEntry(reply, botName, options).map((line) => `${THREAD_PREFIX}${line}`));
      }
      continue;
    }
    const channel = locate(entry).channel;
    if (multiChannel && channel && channel !== lastChannel) lines.push(`── #${channel} ──`);
    lastChannel = channel ?? lastChannel;
    lines.push(...renderEntry(entry, botName, options));
  }
  return lines.join('\n');
}

function renderEntry(entry: ConversationEntry, botName: string, options: RenderConversationOptions): string[] {
  const time = (at: number) => (options.showTimes ? `[${new Date(at).toISOString().slice(11, 19)}] ` : '');
  switch (entry.kind) {
    case 'command':
      return [`${time(entry.at)}> ${`${entry.command} ${entry.text}`.trim()}  — @${entry.user}`];
    case 'message':
      return renderMessage(entry.message, botName, time(entry.message.postedAt));
    case 'ephemeral': {
      const ephemeral = entry.ephemeral;
      if (ephemeral.deleted) return [];
      const sender = ephemeral.source === 'slack' ? 'Slackbot' : botName;
      const edited = ephemeral.versions.length > 1 ? ' (edited)' : '';
      return [
        `${time(ephemeral.at)}${sender} → @${ephemeral.user} (only visible to you)${edited}:`,
        ...indent(renderMessageAsText(ephemeral)),
      ];
    }
    case 'click':
      return [`${time(entry.at)}👆 @${entry.user} clicked [ ${entry.label} ]`];
    case 'modal-opened': {
      const view = entry.modal.versions[0] ?? entry.modal.view;
      return [
        `${time(entry.at)}🗔 modal "${titleOf(view)}" opened for @${entry.modal.user}:`,
        ...indent(renderBlocksAsText(Array.isArray(view.blocks) ? view.blocks : [])),
      ];
    }
    case 'modal-submitted': {
      const fields = Object.entries(entry.values).map(([label, value]) => `${label}: ${value}`);
      const refused = Object.entries(entry.errors ?? {}).map(([block, error]) => `⚠ ${block}: ${error}`);
      return [
        `${time(entry.at)}🗔 @${entry.user} submitted "${titleOf(entry.modal.view)}"${entry.errors ? ' (refused)' : ''}`,
        ...indent([...fields, ...refused].join('\n')),
      ];
    }
  }
}

function renderMessage(message: FakeMessage, botName: string, time: string): string[] {
  if (message.deleted) return message.replies.length > 0 ? [`${time}(message deleted)`] : [];
  const tags = [
    message.editedAt !== undefined ? ' (edited)' : '',
    message.replyBroadcast ? ' (also sent to the channel)' : '',
  ].join('');
  const lines = [`${time}${message.username ?? botName}${tags}:`, ...indent(renderMessageAsText(message))];
  for (const file of message.files) lines.push(`${BODY_INDENT}📎 ${file.name} (${file.lines} lines)`);
  if (message.reactions.length > 0) lines.push(`${BODY_INDENT}${message.reactions.map((name) => `:${name}:`).join(' ')}`);
  return lines;
}

/** Channel and thread an entry belongs to, so it can be shown in place. */
function locate(entry: ConversationEntry): { channel?: string; threadTs?: string } {
  switch (entry.kind) {
    case 'command':
      return { channel: entry.channel };
    case 'message':
      return { channel: entry.message.channel, threadTs: entry.message.threadTs };
    case 'ephemeral':
      return { channel: entry.ephemeral.channel, threadTs: entry.ephemeral.threadTs };
    case 'click':
      return { channel: entry.channel, threadTs: entry.threadTs };
    case 'modal-opened':
    case 'modal-submitted':
      return { channel: entry.modal.channel, threadTs: entry.modal.threadTs };
  }
}

function threadKey(message: FakeMessage): string {
  return `${message.channel}/${message.ts}`;
}

function indent(text: string): string[] {
  return text === '' ? [] : text.split('\n').map((line) => `${BODY_INDENT}${line}`);
}

function titleOf(view: Record<string, unknown>): string {
  const title = view.title as { text?: unknown } | undefined;
  return typeof title?.text === 'string' ? title.text : String(view.callback_id ?? 'modal');
}
