// The playground page: a Slack channel over the fake Slack's client feed (server-sent events), with the user picker,
// composer, threads, modals and confirm dialogs, and the simulated cluster beside it. Rendering is done by the pure
// modules (block-kit-html.js, cluster-panel-html.js); this file starts the page and turns clicks into API calls.
import { askConfirm, closeView, formValues } from './dialogs.js';
import { localNote, remember, render, scheduleRender } from './message-list.js';
import { escapeHtml } from './mrkdwn-html.js';
import { $, postJson, state, toast } from './page-state.js';
import { currentCluster, pollSimForever, renderPanel, simControl } from './sim-panel.js';

const FAILED_UPDATE_MESSAGE = 'The new control plane did not pass its health checks; Amazon EKS rolled the cluster back to its previous version.';

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
  if (target.dataset.workloadName) {
    const workload = { cluster: currentCluster()?.name, namespace: target.dataset.workloadNamespace, name: target.dataset.workloadName };
    const onVersion = target.dataset.workloadFail;
    return void (onVersion
      ? simControl('workloads/fail', { ...workload, onVersion }, 'Breaking the workload')
      : simControl('workloads/fail', workload, 'Healing the workload', 'DELETE'));
  }
  if (target.hasAttribute('data-modal-close')) return void closeView();
});

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
  $('suggestions').innerHTML = (state.settings.examples ?? ['help'])
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
