import { describe, expect, it } from 'vitest';
import { humanDuration } from '../../../src/sim/kube/tables/human-duration.js';
import { makeNode } from '../../../src/sim/kube/controllers/make-node.js';
import { renderTable, wantsTable } from '../../../src/sim/kube/tables/render-table.js';
import { resourceType } from '../../../src/sim/kube/objects/resource-registry.js';

const NOW = Date.UTC(2026, 0, 1, 12);
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('AGE as kubectl prints it', () => {
  it.each([
    [5 * S, '5s'],
    [62 * S, '62s'],
    [2 * M + 40 * S, '2m40s'],
    [5 * M, '5m'],
    [45 * M, '45m'],
    [152 * M, '152m'],
    [4 * H + 27 * M, '4h27m'],
    [22 * H, '22h'],
    [2 * D + 10 * H, '2d10h'],
    [2 * D, '2d'],
    [35 * D, '35d'],
    [3 * 365 * D + 5 * D, '3y5d'],
  ])('%d ms → %s', (ms, text) => expect(humanDuration(ms)).toBe(text));
});

function cells(resource: string, object: any, minor = 30) {
  const table: any = renderTable(resourceType(resource)!, [object], { now: NOW, minor });
  return Object.fromEntries(table.columnDefinitions.map((c: any, i: number) => [c.name, table.rows[0].cells[i]]));
}

describe('server-side tables', () => {
  it('recognises the Accept header kubectl sends', () => {
    expect(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json')).toBe(true);
    expect(wantsTable('application/json, */*')).toBe(false);
  });

  it('prints a cordoned node as Ready,SchedulingDisabled with its kubelet version', () => {
    const node = makeNode({ name: 'ip-10-0-3-199.us-west-2.compute.internal', labels: {}, kubeletVersion: 'v1.25.16-eks-59bf375', instanceType: 'm5.large', zone: 'us-west-2a', region: 'us-west-2', unschedulable: true, internalIP: '10.0.3.199', creationTimestamp: ago(22 * H) });
    expect(cells('nodes', node)).toMatchObject({ Name: node.metadata.name, Status: 'Ready,SchedulingDisabled', Roles: '<none>', Age: '22h', Version: 'v1.25.16-eks-59bf375', 'Internal-IP': '10.0.3.199', 'External-IP': '<none>' });
    const notReady = makeNode({ name: 'n', labels: { 'node-role.kubernetes.io/control-plane': '' }, kubeletVersion: 'v1', instanceType: 'm5.large', zone: 'a', region: 'r', ready: false });
    expect(cells('nodes', notReady)).toMatchObject({ Status: 'NotReady', Roles: 'control-plane' });
  });

  it('prints pods like kubectl get pods -o wide (ContainerCreating, Running, Terminating, restarts)', () => {
    const base = { metadata: { name: 'orders-5b97745747-wr9bf', namespace: 'orders', creationTimestamp: ago(2 * S) }, spec: { nodeName: 'ip-10-0-10-196.us-west-2.compute.internal', containers: [{ name: 'orders', image: 'orders:1' }] } };
    const creating = { ...base, status: { phase: 'Pending', containerStatuses: [{ name: 'orders', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] } };
    expect(cells('pods', creating)).toMatchObject({ Ready: '0/1', Status: 'ContainerCreating', Restarts: '0', Age: '2s', IP: '<none>', Node: 'ip-10-0-10-196.us-west-2.compute.internal', 'Nominated Node': '<none>', 'Readiness Gates': '<none>' });
    const running = {
      ...base,
      status: { phase: 'Running', podIP: '10.0.8.253', podIPs: [{ ip: '10.0.8.253' }], containerStatuses: [{ name: 'orders', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { finishedAt: ago(21 * H) } } }] },
    };
    expect(cells('pods', running)).toMatchObject({ Ready: '1/1', Status: 'Running', Restarts: '2 (21h ago)', IP: '10.0.8.253' });
    expect(cells('pods', { ...running, metadata: { ...running.metadata, deletionTimestamp: ago(0) } })).toMatchObject({ Status: 'Terminating' });
  });

  it('prints PDBs with N/A for the unset bound', () => {
    const pdb = { metadata: { name: 'orders-pdb', creationTimestamp: ago(15 * H) }, spec: { minAvailable: 1 }, status: { disruptionsAllowed: 0 } };
    expect(cells('poddisruptionbudgets', pdb)).toEqual({ Name: 'orders-pdb', 'Min Available': '1', 'Max Unavailable': 'N/A', 'Allowed Disruptions': 0, Age: '15h' });
  });

  it('prints deployments and events', () => {
    const d = { metadata: { name: 'orders', creationTimestamp: ago(21 * H) }, spec: { replicas: 1, selector: { matchLabels: { app: 'orders' } }, template: { spec: { containers: [{ name: 'orders', image: 'orders:1' }] } } }, status: { readyReplicas: 0, updatedReplicas: 1, availableReplicas: 0 } };
    expect(cells('deployments', d)).toMatchObject({ Name: 'orders', Ready: '0/1', 'Up-to-date': 1, Available: 0, Age: '21h', Selector: 'app=orders' });
    const e = { metadata: { name: 'n.1' }, involvedObject: { kind: 'Node', name: 'ip-10-0-3-199' }, reason: 'NodeNotSchedulable', message: 'Node ip-10-0-3-199 status is now: NodeNotSchedulable', type: 'Normal', firstTimestamp: ago(5 * M), lastTimestamp: ago(4 * M + 55 * S), count: 1, source: { component: 'node-controller' } };
    expect(cells('events', e)).toMatchObject({ 'Last Seen': '4m55s', Type: 'Normal', Reason: 'NodeNotSchedulable', Object: 'node/ip-10-0-3-199', Source: 'node-controller' });
  });

  it('prints NodeClaims with the Karpenter v1 columns and empty cells for what is not known yet', () => {
    const claim = {
      metadata: { name: 'default-m4bv4', creationTimestamp: ago(15 * M), labels: { 'node.kubernetes.io/instance-type': 'm6a.large', 'karpenter.sh/capacity-type': 'on-demand', 'topology.kubernetes.io/zone': 'us-west-2b' } },
      status: { nodeName: 'ip-10-0-24-213.us-west-2.compute.internal', conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const table: any = renderTable(resourceType('nodeclaims')!, [claim as any], { now: NOW, minor: 31 });
    expect(table.columnDefinitions.filter((c: any) => !c.priority).map((c: any) => c.name)).toEqual(['Name', 'Type', 'Capacity', 'Zone', 'Node', 'Ready', 'Age']);
    expect(table.rows[0].cells.slice(0, 7)).toEqual(['default-m4bv4', 'm6a.large', 'on-demand', 'us-west-2b', 'ip-10-0-24-213.us-west-2.compute.internal', 'True', '15m']);
    expect(table.rows[0].object.metadata.labels['karpenter.sh/capacity-type']).toBe('on-demand');
  });
});
