// The playground page: a Slack channel over the fake Slack's client feed (server-sent events), with the user picker,
// composer, threads, modals and confirm dialogs, and the simulated cluster beside it. Rendering is done by the pure
// modules (block-kit-html.js, cluster-panel-html.js); this file keeps state and turns clicks into API calls.
import { renderConfirm, renderMessageBody, renderModal } from './block-kit-html.js';
import { renderClusterPanel } from './cluster-panel-html.js';
import { escapeHtml } from './mrkdwn-html.js';

const $ = (id) => document.getElementById(id);
const SIM_POLL_MS = 1000;
const SPEEDS = [1, 5, 10, 30, 60, 120, 300, 600];
const FAILED_UPDATE_MESSAGE = 'The new control plane did not pass its health checks; Amazon EKS rolled the cluster back to its previous version.';

const state = {
  settings: { channel: { id: '', name: '' }, users: [], clusters: [] },
  workspace: { users: {}, channels: {}, botUserId: '', botName: 'bot' },
  /** key → { event, rev } for messages, ephemerals and the page's own notes. */
  items: new Map(),
  views: new Map(),
  dismissed: new Set(),
  user: '',
  thread: undefined,
  cluster: undefined,
  sim: undefined,
  lastPanelHtml: '',
  noteSeq: 0,
};

const names = () => ({ users: state.workspace.users, channels: state.workspace.channels });

async function postJson(path, body) {
  const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json().catch(() => ({ ok: false, message: `${path} answered ${response.status}` }));
  if (!response.ok || answer.ok === false) throw new Error(answer.message ?? `${path} answered ${response.status}`);
  return answer;
}

function toast(message) {
  const box = $('toast');
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

// ——— messages ———

function remember(key, event) {
  const previous = state.items.get(key);
  state.items.set(key, { event, rev: (previous?.rev ?? 0) + 1 });
  scheduleRender();
}

/** A note from the page itself (Slack's client answers an unknown /command without asking any app). */
function localNote(text) {
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
    ? `<a class="file" href="/slack${escapeHtml(f.path)}" download="${escapeHtml(f.name)}">📎 ${escapeHtml(f.title || f.name)}</a> <span class="muted">${f.lines} lines</span>`
    : `<span class="file muted">📎 ${escapeHtml(f.name)} (uploading…)</span>`)).join('');
  const replies = !inThread && event.replyCount > 0
    ? `<button type="button" class="replies-link" data-open-thread="${escapeHtml(event.ts)}">${event.replyCount} ${event.replyCount === 1 ? 'reply' : 'replies'}</button>`
    : '';
  const body = event.type === 'note' ? `<div class="bk-section-text">${escapeHtml(event.text)}</div>` : renderMessageBody(event, names());
  return `<li class="message${ephemeral ? ' ephemeral' : ''}" data-ts="${escapeHtml(event.ts)}" data-key="${escapeHtml(key)}" tabindex="-1">`
    + `<div class="avatar" aria-hidden="true">${authorOf(event) === 'Slackbot' ? '💬' : '🤖'}</div>`
    + '<div class="message-main"><div class="message-meta">'
    + `<span class="author">${escapeHtml(authorOf(event))}</span> <span class="app-badge">APP</span> <time>${escapeHtml(timeOf(event))}</time>${event.edited ? ' <span class="muted">(edited)</span>' : ''}</div>`
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
      el = fresh;
    }
    existing.delete(item.key);
    const wanted = previous ? previous.nextElementSibling : list.firstElementChild;
    if (wanted !== el) list.insertBefore(el, wanted);
    previous = el;
  }
  for (const el of existing.values()) el.remove();
  if (stick) list.scrollTop = list.scrollHeight;
}

function restoreFocus(fresh, focused) {
  const actionId = focused.dataset?.actionId;
  const match = actionId && [...fresh.querySelectorAll('[data-action-id]')].find((b) => b.dataset.actionId === actionId && b.dataset.value === focused.dataset.value);
  (match ?? fresh).focus();
}

let renderPending = false;
function scheduleRender() {
  if (renderPending) return;
  renderPending = true;
  setTimeout(() => {
    renderPending = false;
    render();
  }, 16);
}

function render() {
  reconcile($('channel-messages'), visibleItems('channel'), false);
  const thread = $('thread');
  const parent = state.thread && state.items.get(`m:${state.thread}`);
  thread.hidden = !parent;
  document.querySelector('.layout').classList.toggle('has-thread', Boolean(parent));
  if (parent) reconcile($('thread-messages'), visibleItems(state.thread), true);
  syncModal();
}

// ——— modals and confirm dialogs ———

function openView() {
  const open = [...state.views.values()].filter((v) => v.event.user === state.user && v.event.state === 'open');
  return open.at(-1);
}

function formValues(form) {
  const values = {};
  for (const block of form.querySelectorAll('.bk-input')) {
    const field = block.querySelector('[name]');
    if (!field) continue;
    const name = field.name;
    const choices = block.querySelector('fieldset.bk-choices');
    if (choices) {
      const picked = [...choices.querySelectorAll('input:checked')].map((i) => i.value);
      if (picked.length) values[name] = choices.dataset.kind === 'checkbox' ? picked : picked[0];
    } else if (field.value !== '') values[name] = field.value;
  }
  return values;
}

function syncModal() {
  const dialog = $('modal-dialog');
  const form = $('modal-form');
  const view = openView();
  if (!view) {
    if (dialog.open) dialog.close();
    form.dataset.viewId = '';
    return;
  }
  const rev = `${view.event.id}:${view.rev}`;
  if (form.dataset.rev !== rev) {
    const typed = form.dataset.viewId === view.event.id ? formValues(form) : {};
    form.innerHTML = renderModal(view.event.view, view.event.errors, names());
    for (const [name, value] of Object.entries(typed)) {
      for (const field of form.querySelectorAll(`[name="${CSS.escape(name)}"]`)) {
        if (field.type === 'checkbox' || field.type === 'radio') field.checked = [].concat(value).includes(field.value);
        else field.value = value;
      }
    }
    form.dataset.rev = rev;
    form.dataset.viewId = view.event.id;
  }
  if (!dialog.open) dialog.showModal();
}

async function closeView() {
  const viewId = $('modal-form').dataset.viewId;
  $('modal-dialog').close();
  if (viewId) await postJson('/slack/close', { userId: state.user, viewId }).catch((e) => toast(e.message));
}

function askConfirm(confirm) {
  const dialog = $('confirm-dialog');
  dialog.innerHTML = renderConfirm(confirm, names());
  return new Promise((resolve) => {
    const done = (answer) => {
      dialog.removeEventListener('click', onClick);
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const onClick = (event) => {
      const answer = event.target.closest('[data-confirm-answer]')?.dataset.confirmAnswer;
      if (answer) done(answer === 'confirm');
    };
    const onCancel = (event) => {
      event.preventDefault();
      done(false);
    };
    dialog.addEventListener('click', onClick);
    dialog.addEventListener('cancel', onCancel);
    dialog.showModal();
  });
}

// ——— user actions ———

async function clickButton(button) {
  const message = button.closest('[data-ts]');
  if (!message || button.getAttribute('aria-busy') === 'true') return;
  if (button.dataset.confirm && !(await askConfirm(JSON.parse(button.dataset.confirm)))) return;
  button.setAttribute('aria-busy', 'true');
  try {
    await postJson('/slack/click', {
      userId: state.user, channelId: state.settings.channel.id, messageTs: message.dataset.ts,
      actionId: button.dataset.actionId, value: button.dataset.value,
    });
  } catch (error) {
    toast(`Clicking "${button.textContent.trim()}": ${error.message}`);
  } finally {
    button.removeAttribute('aria-busy');
  }
}

async function sendComposer(event) {
  event.preventDefault();
  const input = $('composer-input');
  const text = input.value.trim();
  if (!text) return;
  const command = /^\/(\S+)\s*([\s\S]*)$/.exec(text);
  if (!command) return localNote('The bot listens to its slash command only: type /eks-upgrade help.');
  if (command[1] !== 'eks-upgrade') {
    return localNote(`/${command[1]} is not a valid command. In Slack, all messages that start with the "/" character are interpreted as commands.`);
  }
  input.value = '';
  try {
    await postJson('/slack/command', { userId: state.user, channelId: state.settings.channel.id, text: command[2].trim() });
  } catch (error) {
    input.value = text;
    toast(`Sending ${text}: ${error.message}`);
  }
}

async function simControl(path, body, what) {
  try {
    await postJson(`/sim/${path}`, body);
    await pollSim();
  } catch (error) {
    toast(`${what}: ${error.message}`);
  }
}

document.addEventListener('click', (event) => {
  const target = event.target.closest('button, a');
  if (!target) return;
  if (target.matches('.bk-button[data-action-id]')) return void clickButton(target);
  if (target.dataset.openThread) {
    state.thread = target.dataset.openThread;
    render();
    $('thread-close').focus();
    return;
  }
  if (target.dataset.dismiss) {
    state.dismissed.add(target.dataset.dismiss);
    return render();
  }
  if (target.dataset.suggestion) {
    $('composer-input').value = target.dataset.suggestion;
    return $('composer-input').focus();
  }
  if (target.dataset.pdbName) {
    const cluster = encodeURIComponent(currentCluster()?.name ?? '');
    const path = `clusters/${cluster}/pdbs/${encodeURIComponent(target.dataset.pdbNamespace)}/${encodeURIComponent(target.dataset.pdbName)}`;
    return void simControl(path, { stuck: target.dataset.pdbStuck === 'true' }, 'Changing the PDB');
  }
  if (target.hasAttribute('data-modal-close')) return void closeView();
});

// ——— simulated cluster panel ———

function currentCluster() {
  const clusters = state.sim?.clusters ?? [];
  return clusters.find((c) => c.name === state.cluster) ?? clusters[0];
}

function renderPanel() {
  const sim = state.sim;
  if (!sim) return;
  const cluster = currentCluster();
  $('sim-time').textContent = `${sim.scenario} · simulated ${sim.now.slice(11, 19)} UTC`;
  const speed = $('sim-speed');
  if (document.activeElement !== speed) {
    const speeds = [...new Set([...SPEEDS, sim.speed])].sort((a, b) => a - b);
    speed.innerHTML = speeds.map((s) => `<option value="${s}"${s === sim.speed ? ' selected' : ''}>${s}× real time</option>`).join('');
    speed.disabled = !sim.canChangeSpeed;
  }
  const armed = sim.faults?.failNextClusterUpdate;
  $('fail-next-update').textContent = armed ? 'Disarm the update failure' : 'Fail the next control-plane update';
  $('fault-status').textContent = armed ? `armed: the next control-plane update of ${armed.cluster ?? 'any cluster'} ends Failed` : '';
  const html = renderClusterPanel(sim, cluster?.name);
  if (html === state.lastPanelHtml) return;
  state.lastPanelHtml = html;
  const panel = $('cluster-panel');
  const focusKey = document.activeElement?.dataset?.focusKey;
  const closed = new Set([...panel.querySelectorAll('details[data-group]:not([open])')].map((d) => d.dataset.group));
  const opened = new Set([...panel.querySelectorAll('details[data-group][open]')].map((d) => d.dataset.group));
  panel.innerHTML = html;
  for (const details of panel.querySelectorAll('details[data-group]')) {
    if (closed.has(details.dataset.group)) details.open = false;
    if (opened.has(details.dataset.group)) details.open = true;
  }
  if (focusKey) panel.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`)?.focus();
}

async function pollSim() {
  try {
    const response = await fetch('/sim/state');
    if (!response.ok) throw new Error(`the simulator answered ${response.status}`);
    state.sim = await response.json();
    renderPanel();
  } catch (error) {
    $('sim-time').textContent = `simulator unreachable (${error.message}); is npm run playground still running?`;
  }
}

function pollSimForever() {
  pollSim().finally(() => setTimeout(pollSimForever, SIM_POLL_MS));
}

// ——— start ———

function setUser(id) {
  state.user = id;
  const user = state.settings.users.find((u) => u.id === id);
  $('user-can').textContent = user?.can ?? '';
  render();
}

function connectFeed() {
  const feed = new EventSource('/slack/feed');
  const status = $('connection');
  feed.onopen = () => {
    status.textContent = '';
    status.hidden = true;
  };
  feed.onerror = () => {
    status.hidden = false;
    status.textContent = 'Lost the local Slack; reconnecting… (is npm run playground still running?)';
  };
  feed.addEventListener('workspace', (e) => {
    state.workspace = JSON.parse(e.data);
    scheduleRender();
  });
  feed.addEventListener('message', (e) => {
    const event = JSON.parse(e.data);
    remember(`m:${event.ts}`, event);
  });
  feed.addEventListener('ephemeral', (e) => {
    const event = JSON.parse(e.data);
    remember(`e:${event.ts}`, event);
  });
  feed.addEventListener('view', (e) => {
    const event = JSON.parse(e.data);
    const previous = state.views.get(event.id);
    state.views.set(event.id, { event, rev: (previous?.rev ?? 0) + 1 });
    scheduleRender();
  });
}

async function start() {
  state.settings = await (await fetch('/settings.json')).json();
  const { channel, users, clusters } = state.settings;
  $('channel-name').textContent = `# ${channel.name}`;
  $('composer-input').placeholder = `Message #${channel.name} — type /eks-upgrade help`;
  const picker = $('user-picker');
  picker.innerHTML = users.map((u) => `<option value="${escapeHtml(u.id)}">${escapeHtml(u.name)} (${escapeHtml(u.role)})</option>`).join('');
  picker.addEventListener('change', () => setUser(picker.value));
  const clusterPicker = $('cluster-picker');
  clusterPicker.innerHTML = clusters.map((c) => `<option>${escapeHtml(c)}</option>`).join('');
  clusterPicker.hidden = $('cluster-picker-label').hidden = clusters.length < 2;
  clusterPicker.addEventListener('change', () => {
    state.cluster = clusterPicker.value;
    renderPanel();
  });
  state.cluster = clusters[0];
  const first = clusters[0] ?? '<cluster>';
  $('suggestions').innerHTML = ['help', `status ${first}`, `plan ${first} --to 1.31`, `start ${first} --to 1.31`, `jobs ${first}`]
    .map((s) => `<button type="button" class="suggestion" data-suggestion="/eks-upgrade ${escapeHtml(s)}">/eks-upgrade ${escapeHtml(s)}</button>`)
    .join('');
  $('composer').addEventListener('submit', sendComposer);
  $('thread-close').addEventListener('click', () => {
    const ts = state.thread;
    state.thread = undefined;
    render();
    document.querySelector(`[data-open-thread="${CSS.escape(ts ?? '')}"]`)?.focus();
  });
  $('sim-speed').addEventListener('change', (e) => simControl('speed', { speed: Number(e.target.value) }, 'Changing the speed'));
  $('fail-next-update').addEventListener('click', () => {
    const armed = state.sim?.faults?.failNextClusterUpdate;
    const change = armed ? null : { cluster: currentCluster()?.name, errorCode: 'Unknown', errorMessage: FAILED_UPDATE_MESSAGE };
    simControl('faults', { failNextClusterUpdate: change }, 'Arming the update failure');
  });
  const modalDialog = $('modal-dialog');
  modalDialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    closeView();
  });
  $('modal-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    try {
      await postJson('/slack/submit', { userId: state.user, viewId: form.dataset.viewId, values: formValues(form) });
    } catch (error) {
      toast(`Submitting: ${error.message}`);
    }
  });
  setUser(users[0]?.id ?? '');
  connectFeed();
  pollSimForever();
}

start().catch((error) => toast(`Starting the page: ${error.message}`));
