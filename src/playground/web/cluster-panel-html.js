// The side panel's content: one simulated cluster as GET /_sim/state describes it (control plane and its updates,
// nodes by group with their kubelets, NodeClaims, Deployments, PDBs with the pods they block), as an HTML string. Pure; every
// name from the simulator is escaped. Toggles carry data- attributes the page turns into /_sim control calls.
import { escapeHtml } from './mrkdwn-html.js';

const asArray = (value) => (Array.isArray(value) ? value : []);

/** Where a node belongs, as the status card groups compute: managed node group, NodePool, Fargate, self-managed. */
export function nodeGroupLabel(node) {
  if (node.nodegroup) return `managed node group ${node.nodegroup}`;
  if (node.nodepool) return `Karpenter NodePool ${node.nodepool}`;
  if (node.computeType === 'fargate') return 'Fargate';
  return 'self-managed';
}

/** "v1.30.14-eks-f69f56f" → "1.30". */
function minorOf(kubeletVersion) {
  return /^v?(\d+\.\d+)/.exec(kubeletVersion ?? '')?.[1] ?? '?';
}

function badge(text, tone) {
  return `<span class="badge badge-${tone}">${escapeHtml(text)}</span>`;
}

function statusTone(status) {
  if (/^(ACTIVE|Successful|Ready)$/i.test(status ?? '')) return 'ok';
  if (/fail|degraded|cancel/i.test(status ?? '')) return 'bad';
  return 'busy';
}

function renderControlPlane(cluster) {
  const update = asArray(cluster.updates).filter((u) => u.type === 'VersionUpdate').at(-1);
  const updateLine = update
    ? `<p class="panel-line">Last version update: ${badge(update.status, statusTone(update.status))} to ${escapeHtml(asArray(update.params).find((p) => p.type === 'Version')?.value ?? '?')}${asArray(update.errors).length ? ` — ${escapeHtml(asArray(update.errors).map((e) => `${e.errorCode}: ${e.errorMessage}`).join('; '))}` : ''}</p>`
    : '<p class="panel-line">No version update yet.</p>';
  return `<section aria-labelledby="cp-title"><h3 id="cp-title">Control plane</h3>`
    + `<p class="panel-line"><span class="cp-version" data-testid="cp-version">${escapeHtml(cluster.version)}</span> ${badge(cluster.status, statusTone(cluster.status))} <span class="muted">platform ${escapeHtml(cluster.platformVersion)}</span></p>${updateLine}</section>`;
}

function renderNodes(cluster) {
  const groups = new Map();
  for (const node of asArray(cluster.nodes)) {
    const label = nodeGroupLabel(node);
    if (!groups.has(label)) groups.set(label, []);
    groups.get(label).push(node);
  }
  const nodegroups = new Map(asArray(cluster.nodegroups).map((ng) => [`managed node group ${ng.name}`, ng]));
  const sections = [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([label, nodes]) => {
    const ng = nodegroups.get(label);
    const versions = new Map();
    for (const node of nodes) versions.set(minorOf(node.kubeletVersion), (versions.get(minorOf(node.kubeletVersion)) ?? 0) + 1);
    const summary = [...versions.entries()].map(([v, n]) => `${n}× ${v}`).join(', ');
    const rows = nodes.map((node) => `<li><span class="node-name">${escapeHtml(node.name)}</span> ${escapeHtml(minorOf(node.kubeletVersion))} ${node.ready ? badge('Ready', 'ok') : badge('NotReady', 'bad')}${node.unschedulable ? ` ${badge('cordoned', 'busy')}` : ''}</li>`).join('');
    return `<details class="node-group" data-group="${escapeHtml(label)}"${nodes.length <= 4 ? ' open' : ''}><summary>${escapeHtml(label)} <span class="muted">${nodes.length} node${nodes.length === 1 ? '' : 's'}: ${escapeHtml(summary)}</span>${ng ? ` ${badge(ng.status, statusTone(ng.status))}` : ''}</summary><ul class="node-list">${rows}</ul></details>`;
  });
  return `<section aria-labelledby="nodes-title"><h3 id="nodes-title">Nodes</h3>${sections.join('') || '<p class="panel-line muted">No nodes.</p>'}</section>`;
}

function renderNodeClaims(cluster) {
  const claims = asArray(cluster.nodeclaims);
  if (claims.length === 0) return '<section aria-labelledby="claims-title"><h3 id="claims-title">NodeClaims</h3><p class="panel-line muted">No Karpenter NodeClaims.</p></section>';
  const drifted = claims.filter((c) => c.drifted).length;
  const rows = claims.map((c) => `<li><span class="node-name">${escapeHtml(c.name)}</span> <span class="muted">${escapeHtml(c.nodepool ?? '')}</span> ${c.deleting ? badge('deleting', 'busy') : c.drifted ? badge('drifted', 'busy') : c.ready ? badge('Ready', 'ok') : badge('launching', 'busy')}</li>`).join('');
  return `<section aria-labelledby="claims-title"><h3 id="claims-title">NodeClaims</h3><p class="panel-line">${claims.length} NodeClaims, ${drifted} drifted</p><ul class="node-list">${rows}</ul></section>`;
}

/** The minor the nodes move to next: one above the oldest kubelet (the control plane's when the nodes lag it). */
function nextNodeMinor(cluster) {
  const minors = asArray(cluster.nodes).map((n) => minorOf(n.kubeletVersion)).filter((m) => m !== '?');
  const [major, minor] = (minors.sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))[0] ?? cluster.version ?? '1.0').split('.').map(Number);
  return `${major}.${minor + 1}`;
}

// Each Deployment with its available replicas, and the workload fault (POST /_sim/workloads/fail): break it on the
// kubelet minor the nodes move to next, as an incompatible new version would, or make it healthy again.
function renderWorkloads(cluster) {
  const workloads = asArray(cluster.workloads).filter((w) => w.namespace !== 'kube-system');
  if (workloads.length === 0) return '<section aria-labelledby="workloads-title"><h3 id="workloads-title">Workloads</h3><p class="panel-line muted">No Deployments outside kube-system.</p></section>';
  const target = nextNodeMinor(cluster);
  const rows = workloads.map((w) => {
    const key = `${w.namespace}/${w.name}`;
    const toggle = w.failsReadinessOn
      ? `<button type="button" class="small-button" data-workload-namespace="${escapeHtml(w.namespace)}" data-workload-name="${escapeHtml(w.name)}" data-workload-fail="" data-focus-key="workload:${escapeHtml(key)}">Heal</button>`
      : `<button type="button" class="small-button" data-workload-namespace="${escapeHtml(w.namespace)}" data-workload-name="${escapeHtml(w.name)}" data-workload-fail="${escapeHtml(target)}" data-focus-key="workload:${escapeHtml(key)}">Break on ${escapeHtml(target)}</button>`;
    const tone = w.available >= w.replicas ? 'ok' : w.available > 0 ? 'busy' : 'bad';
    return `<li><span class="node-name">${escapeHtml(key)}</span> ${badge(`${w.available}/${w.replicas} available`, tone)}${w.failsReadinessOn ? ` ${badge(`fails on ${w.failsReadinessOn}`, 'bad')}` : ''} ${toggle}</li>`;
  }).join('');
  return `<section aria-labelledby="workloads-title"><h3 id="workloads-title">Workloads</h3><ul class="pdb-list">${rows}</ul></section>`;
}

function renderPdbs(cluster) {
  const pdbs = asArray(cluster.pdbs);
  if (pdbs.length === 0) return '<section aria-labelledby="pdb-title"><h3 id="pdb-title">PodDisruptionBudgets</h3><p class="panel-line muted">None.</p></section>';
  const rows = pdbs.map((pdb) => {
    const key = `${pdb.namespace}/${pdb.name}`;
    const blocked = asArray(pdb.blockedPods);
    const blocking = blocked.length
      ? `<div class="pdb-blocked">blocks eviction of ${blocked.map((p) => `<span class="node-name">${escapeHtml(p.name)}</span>`).join(', ')}</div>`
      : '';
    const toggle = `<button type="button" class="small-button" data-pdb-namespace="${escapeHtml(pdb.namespace)}" data-pdb-name="${escapeHtml(pdb.name)}" data-pdb-stuck="${pdb.stuck ? 'false' : 'true'}" data-focus-key="pdb:${escapeHtml(key)}">${pdb.stuck ? 'Unstick' : 'Make stuck'}</button>`;
    return `<li class="pdb${blocked.length ? ' pdb-blocking' : ''}"><span class="node-name">${escapeHtml(key)}</span> ${badge(`${pdb.disruptionsAllowed} disruption${pdb.disruptionsAllowed === 1 ? '' : 's'} allowed`, pdb.disruptionsAllowed > 0 ? 'ok' : 'bad')}${pdb.stuck ? ` ${badge('stuck', 'bad')}` : ''} ${toggle}${blocking}</li>`;
  }).join('');
  return `<section aria-labelledby="pdb-title"><h3 id="pdb-title">PodDisruptionBudgets</h3><ul class="pdb-list">${rows}</ul></section>`;
}

/** The live part of the panel for one cluster of the state (the first when `name` is not found). */
export function renderClusterPanel(state, name) {
  const clusters = asArray(state?.clusters);
  const cluster = clusters.find((c) => c.name === name) ?? clusters[0];
  if (!cluster) return '<p class="panel-line muted">The simulator has no clusters.</p>';
  const addons = asArray(cluster.addons).map((a) => `<li>${escapeHtml(a.name)} <span class="muted">${escapeHtml(a.version)}</span> ${badge(a.status, statusTone(a.status))}</li>`).join('');
  return `<h2 class="panel-cluster">${escapeHtml(cluster.name)} <span class="muted">${escapeHtml(cluster.region)}</span></h2>`
    + renderControlPlane(cluster)
    + renderNodes(cluster)
    + renderNodeClaims(cluster)
    + renderWorkloads(cluster)
    + renderPdbs(cluster)
    + `<section aria-labelledby="addons-title"><h3 id="addons-title">Add-ons</h3><ul class="node-list">${addons || '<li class="muted">none</li>'}</ul></section>`;
}
