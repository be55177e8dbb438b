// The channel and thread views: messages, ephemerals and the page's own notes kept by key, drawn with the Block
// Kit renderer, and reconciled into the lists so that only what changed is replaced.
import { renderMessageBody } from './block-kit-html.js';
import { syncModal } from './dialogs.js';
import { escapeHtml } from './mrkdwn-html.js';
import { $, names, state } from './page-state.js';

export function remember(key, event) {
  const previous = state.items.get(key);
  state.items.set(key, { event, rev: (previous?.rev ?? 0) + 1 });
  scheduleRender();
}

/** A note from the page itself (Slack's client answers an unknown /command without asking any app). */
export function localNote(text) {
  const ts = (Date.now() / 1000).toFixed(6);
  remember(`n:${++state.noteSeq}`, { type: 'note', user: state.user, channel: state.settings.channel.id, ts, text, at: Date.now() });
}

function authorOf(event) {
  if (event.type === 'note' || event.source === 'slack') return 'Slackbot';
  if (event.type === 'ephemeral' || event.user === state.workspace.botUserId) return event.username ?? state.workspace.botName;
  return state.workspace.users[event.user] ?? event.user;
}

function timeOf(event) {
  const ms = event.postedAt ?? event.at ?? Number(event.ts) * 1000;
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

function messageHtml(key, event, inThread) {
  const ephemeral = event.type !== 'message';
  const files = (event.files ?? []).map((f) => (f.path
    ? `<a class="file" href="/slack${escapeHtml(f.path)}" download="${escapeHtml(f.name)}">📎 ${escapeHtml(f.title || f.name)}</a> <span class="muted">${Number(f.lines) || 0} lines</span>`
    : `<span class="file muted">📎 ${escapeHtml(f.name)} (uploading…)</span>`)).join('');
  const replies = !inThread && event.replyCount > 0
    ? `<button type="button" class="replies-link" data-open-thread="${escapeHtml(event.ts)}">${event.replyCount} ${event.replyCount === 1 ? 'reply' : 'replies'}</button>`
    : '';
  const body = event.type === 'note' ? `<div class="bk-section-text">${escapeHtml(event.text)}</div>` : renderMessageBody(event, names());
  return `<li class="message${ephemeral ? ' ephemeral' : ''}" data-ts="${escapeHtml(event.ts)}" data-key="${escapeHtml(key)}" tabindex="-1">`
    + `<div class="avatar" aria-hidden="true">${authorOf(event) === 'Slackbot' ? '💬' : '🤖'}</div>`
    + '<div class="message-main"><div class="message-meta">'
    + `<span class="author">${escapeHtml(authorOf(event))}</span>${authorOf(event) === 'Slackbot' ? '' : ' <span class="app-badge">APP</span>'} <time>${escapeHtml(timeOf(event))}</time>${event.edited ? ' <span class="muted">(edited)</span>' : ''}</div>`
    + (ephemeral ? '<div class="only-you">👁 Only visible to you</div>' : '')
    + `<div class="message-body">${body}</div>`
    + (files ? `<div class="files">${files}</div>` : '')
    + replies
    + (ephemeral ? `<button type="button" class="link-button" data-dismiss="${escapeHtml(key)}">Dismiss</button>` : '')
    + '</div></li>';
}

function visibleItems(where) {
  const channel = state.settings.channel.id;
  const out = [];
  for (const [key, item] of state.items) {
    const e = item.event;
    if (e.deleted || state.dismissed.has(key) || e.channel !== channel) continue;
    if (e.type !== 'message' && e.user !== state.user) continue;
    const inThisThread = where === 'channel' ? !e.threadTs || e.threadTs === e.ts : e.ts === where || e.threadTs === where;
    if (inThisThread) out.push({ key, ...item });
  }
  return out.sort((a, b) => (a.event.ts < b.event.ts ? -1 : a.event.ts > b.event.ts ? 1 : 0));
}

/** Replaces only the items whose revision changed, so focus and scrolling survive the bot's edits. */
function reconcile(list, items, inThread) {
  const existing = new Map([...list.children].map((el) => [el.dataset.key, el]));
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  let previous = null;
  let firstNew = null;
  for (const item of items) {
    const rev = `${item.rev}:${state.user}`;
    let el = existing.get(item.key);
    if (!el || el.dataset.rev !== rev) {
      const template = document.createElement('template');
      template.innerHTML = messageHtml(item.key, item.event, inThread);
      const fresh = template.content.firstElementChild;
      fresh.dataset.rev = rev;
      if (el) {
        const focused = el.contains(document.activeElement) ? document.activeElement : null;
        el.replaceWith(fresh);
        if (focused) restoreFocus(fresh, focused);
      }
      if (!el) firstNew ??= fresh;
      el = fresh;
    }
    existing.delete(item.key);
    const wanted = previous ? previous.nextElementSibling : list.firstElementChild;
    if (wanted !== el) list.insertBefore(el, wanted);
    previous = el;
  }
  for (const el of existing.values()) el.remove();
  if (stick) list.scrollTop = list.scrollHeight;
  // A new message (the answer to what was just typed, a long plan) is brought into view from its top, as Slack does.
  if (firstNew && (stick || firstNew.classList.contains('ephemeral'))) {
    firstNew.scrollIntoView({ block: firstNew.offsetHeight > list.clientHeight ? 'start' : 'nearest' });
  }
}

/** Puts focus back on the same control of an edited message: a button by its action and value, the replies link by its thread. */
function restoreFocus(fresh, focused) {
  const actionId = focused.dataset?.actionId;
  const thread = focused.dataset?.openThread;
  const match = actionId
    ? [...fresh.querySelectorAll('[data-action-id]')].find((b) => b.dataset.actionId === actionId && b.dataset.value === focused.dataset.value)
    : thread && [...fresh.querySelectorAll('[data-open-thread]')].find((link) => link.dataset.openThread === thread);
  (match ?? fresh).focus();
}

let renderPending = false;
export function scheduleRender() {
  if (renderPending) return;
  renderPending = true;
  setTimeout(() => {
    renderPending = false;
    render();
  }, 16);
}

export function render() {
  reconcile($('channel-messages'), visibleItems('channel'), false);
  const thread = $('thread');
  const parent = state.thread && state.items.get(`m:${state.thread}`);
  thread.hidden = !parent;
  document.querySelector('.layout').classList.toggle('has-thread', Boolean(parent));
  if (parent) reconcile($('thread-messages'), visibleItems(state.thread), true);
  syncModal();
}
