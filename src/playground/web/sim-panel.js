// The side panel: GET /sim/state every second, drawn by cluster-panel-html.js (only when it changed, keeping
// focus and the open/closed node groups), and the simulator controls (speed, faults, stuck PDBs, broken workloads).
import { renderClusterPanel } from './cluster-panel-html.js';
import { $, postJson, state, toast } from './page-state.js';

const SIM_POLL_MS = 1000;
const SPEEDS = [1, 5, 10, 30, 60, 120, 300, 600];

export async function simControl(path, body, what, method = 'POST') {
  try {
    await postJson(`/sim/${path}`, body, method);
    await pollSim();
  } catch (error) {
    toast(`${what}: ${error.message}`);
  }
}

export function currentCluster() {
  const clusters = state.sim?.clusters ?? [];
  return clusters.find((c) => c.name === state.cluster) ?? clusters[0];
}

export function renderPanel() {
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

export function pollSimForever() {
  pollSim().finally(() => setTimeout(pollSimForever, SIM_POLL_MS));
}
