import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendDeploymentLog, createSimClock, createSimKubeStore, makeNode, type SimKubeStoreImpl, type StandaloneKubeServer, startKubeControllers, startStandaloneKubeServer } from '@eks-upgrade-bot/sim';
import { KUBECTL, requireTool, skipWithout } from '../../support/required-tool.js';
import { until } from '../../support/until.js';

/**
 * The real kubectl 1.32 against the simulated apiserver: what the workshop does with it (get with server-side
 * columns, scale, rollout restart, patch, drain refused by orders-pdb until orders runs two replicas, get -w).
 */
const run = promisify(execFile);

let store: SimKubeStoreImpl;
let server: StandaloneKubeServer;
let stopControllers: () => void;
let dir: string;
let kubeArgs: string[];

const BLUE = 'ip-10-0-3-199.us-west-2.compute.internal';
const GREEN = 'ip-10-0-10-196.us-west-2.compute.internal';
const HOUR = 3600_000;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', [...kubeArgs, ...args], { timeout: 20_000 });
  return stdout;
}

function ordersNode(name: string, ageHours: number, now: number) {
  return makeNode({
    name,
    labels: { type: 'OrdersMNG', 'eks.amazonaws.com/nodegroup': 'blue-mng' },
    taints: [{ key: 'dedicated', value: 'OrdersApp', effect: 'NoSchedule' }],
    kubeletVersion: 'v1.25.16-eks-59bf375',
    instanceType: 'm5.large',
    zone: 'us-west-2a',
    region: 'us-west-2',
    internalIP: name.replace(/^ip-(\d+)-(\d+)-(\d+)-(\d+).*$/, '$1.$2.$3.$4'),
    creationTimestamp: new Date(now - ageHours * HOUR).toISOString(),
  });
}

const isRunning = (name?: string) => store.list('pods', 'orders').filter((p) => p.status?.phase === 'Running' && (!name || p.spec.nodeName === name) && !p.metadata.deletionTimestamp);

/** While true, the store's random source answers 0: every pod name a controller draws is the same one. */
let drawSame = false;

beforeEach(async () => {
  const clock = createSimClock(20);
  drawSame = false;
  store = createSimKubeStore({ clusterName: 'eksworkshop-eksctl', gitVersion: 'v1.25.16-eks-2d5f260', clock, random: () => (drawSame ? 0 : Math.random()) });
  store.create('nodes', ordersNode(BLUE, 22, clock.now()));
  stopControllers = startKubeControllers(store, clock);
  store.create('deployments', {
    metadata: { name: 'orders', namespace: 'orders', creationTimestamp: new Date(clock.now() - 21 * HOUR).toISOString() },
    spec: {
      replicas: 1,
      selector: { matchLabels: { 'app.kubernetes.io/component': 'service' } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/component': 'service' } },
        spec: {
          nodeSelector: { type: 'OrdersMNG' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'OrdersApp', effect: 'NoSchedule' }],
          containers: [{ name: 'orders', image: 'public.ecr.aws/aws-containers/retail-store-sample-orders:0.4.0', resources: { requests: { cpu: '250m', memory: '1Gi' } } }],
        },
      },
    },
  });
  store.create('poddisruptionbudgets', {
    metadata: { name: 'orders-pdb', namespace: 'orders', creationTimestamp: new Date(clock.now() - 15 * HOUR).toISOString() },
    spec: { minAvailable: 1, selector: { matchLabels: { 'app.kubernetes.io/component': 'service' } } },
  });
  server = await startStandaloneKubeServer({ store });
  dir = mkdtempSync(join(tmpdir(), 'sim-kubectl-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: sim, cluster: {server: "' + server.url + '"}}]',
      'users: [{name: sim, user: {token: sim}}]',
      'contexts: [{name: sim, context: {cluster: sim, user: sim}}]',
      'current-context: sim',
      '',
    ].join('\n'),
  );
  kubeArgs = ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache')];
  await until(() => isRunning(BLUE).length === 1, 'orders running on blue');
  store.create('nodes', ordersNode(GREEN, 0.75, clock.now()));
});

afterEach(async () => {
  stopControllers();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

// Skipped without kubectl on a laptop; under CI=true these fail, naming what to install (test/support/required-tool.ts).
describe.skipIf(skipWithout(KUBECTL))('kubectl against the simulated apiserver', () => {
  beforeEach(() => requireTool(KUBECTL));

  it('prints nodes, pods, deployments and PDBs with the columns of a real cluster', async () => {
    const nodes = (await kubectl('get', 'nodes', '-l', 'type=OrdersMNG')).trim().split('\n');
    expect(nodes[0].split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(nodes[1].split(/\s+/)).toEqual([GREEN, 'Ready', '<none>', '45m', 'v1.25.16-eks-59bf375']);
    expect(nodes[2].split(/\s+/)).toEqual([BLUE, 'Ready', '<none>', '22h', 'v1.25.16-eks-59bf375']);

    const wide = (await kubectl('get', 'node', BLUE, '-o', 'wide')).split('\n');
    expect(wide[0].split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    expect(wide[1]).toContain('10.0.3.199');

    const pods = (await kubectl('get', 'pods', '-n', 'orders', '-o', 'wide')).split('\n');
    expect(pods[0].split(/\s{2,}/)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    expect(pods[1]).toMatch(new RegExp(`^orders-[a-z0-9]+-[a-z0-9]{5}\\s+1/1\\s+Running\\s+0\\s+21h\\s+10\\.0\\.\\d+\\.\\d+\\s+${BLUE}\\s+<none>\\s+<none>`));

    expect((await kubectl('get', 'deploy', '-n', 'orders')).split('\n')[1].split(/\s+/)).toEqual(['orders', '1/1', '1', '1', '21h']);
    const pdb = (await kubectl('get', 'pdb', '-A')).split('\n');
    expect(pdb[0].split(/\s{2,}/)).toEqual(['NAMESPACE', 'NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
    expect(pdb[1].split(/\s+/)).toEqual(['orders', 'orders-pdb', '1', 'N/A', '0', '15h']);

    const error = await kubectl('get', 'node', 'nope').catch((e) => e.stderr as string);
    expect(error).toContain('Error from server (NotFound): nodes "nope" not found');
  });

  it('drains a node only once the PDB allows it, retrying the 429 like a real cluster', async () => {
    const drain = spawn('kubectl', [...kubeArgs, 'drain', BLUE, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=40s']);
    let output = '';
    drain.stdout.on('data', (d) => (output += d));
    drain.stderr.on('data', (d) => (output += d));
    const exit = new Promise<number | null>((resolve) => drain.on('close', resolve));

    await until(() => output.includes("Cannot evict pod as it would violate the pod's disruption budget."), 'refused eviction');
    expect(output).toContain(`node/${BLUE} cordoned`);
    expect(output).toMatch(/error when evicting pods\/"orders-[a-z0-9-]+" -n "orders" \(will retry after 5s\)/);
    expect((await kubectl('get', 'node', BLUE)).split('\n')[1]).toContain('Ready,SchedulingDisabled');
    expect(isRunning(BLUE)).toHaveLength(1);

    expect(await kubectl('scale', 'deploy', '-n', 'orders', 'orders', '--replicas', '2')).toContain('deployment.apps/orders scaled');
    expect(await exit).toBe(0);
    expect(output).toContain(`node/${BLUE} drained`);
    expect(isRunning(BLUE)).toHaveLength(0);
    await until(() => isRunning(GREEN).length === 2, 'two replicas on green');
  }, 30_000);

  it('restarts a rollout, patches, and watches with get -w', async () => {
    const watch = spawn('kubectl', [...kubeArgs, 'get', 'nodes', '-w']);
    let watched = '';
    watch.stdout.on('data', (d) => (watched += d));
    try {
      await until(() => watched.includes(GREEN), 'initial watch listing');
      await kubectl('cordon', GREEN);
      await until(() => new RegExp(`${GREEN}\\s+Ready,SchedulingDisabled`).test(watched), 'cordon seen by get -w');
    } finally {
      watch.kill();
    }

    await kubectl('uncordon', GREEN);
    expect(await kubectl('rollout', 'restart', 'deploy', '-n', 'orders', 'orders')).toContain('deployment.apps/orders restarted');
    expect(await kubectl('rollout', 'status', 'deploy', '-n', 'orders', 'orders', '--timeout=15s')).toContain('successfully rolled out');
    const restarted = store.get('deployments', 'orders', 'orders')!;
    expect(restarted.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toBeDefined();
    const replicaSets = (await kubectl('get', 'rs', '-n', 'orders', '--no-headers')).trim().split('\n').map((line) => line.split(/\s+/).slice(1, 4).join(' '));
    expect(replicaSets.sort()).toEqual(['0 0 0', '1 1 1']);

    await kubectl('patch', 'pdb', '-n', 'orders', 'orders-pdb', '--type', 'merge', '-p', '{"spec":{"minAvailable":0}}');
    await kubectl('label', 'node', GREEN, 'upgrade=next');
    await kubectl('patch', 'node', GREEN, '--type', 'json', '-p', '[{"op":"add","path":"/metadata/annotations/sim","value":"yes"}]');
    const green = JSON.parse(await kubectl('get', 'node', GREEN, '-o', 'json'));
    expect(green.metadata.labels.upgrade).toBe('next');
    expect(green.metadata.annotations.sim).toBe('yes');
    await until(async () => (await kubectl('get', 'pdb', '-n', 'orders', '--no-headers')).split(/\s+/)[3] === '1', 'pdb allows one');
  }, 30_000);

  it('applies manifests with default validation and shows container logs', async () => {
    const manifest = join(dir, 'hpa.yaml');
    const hpa = (max: number) =>
      [
        'apiVersion: autoscaling/v2',
        'kind: HorizontalPodAutoscaler',
        'metadata: {name: orders, namespace: orders}',
        'spec:',
        `  maxReplicas: ${max}`,
        '  minReplicas: 1',
        '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: orders}',
        '  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]',
        '',
      ].join('\n');
    writeFileSync(manifest, hpa(4));
    expect(await kubectl('apply', '-f', manifest)).toContain('horizontalpodautoscaler.autoscaling/orders created');
    writeFileSync(manifest, hpa(6));
    expect(await kubectl('apply', '-f', manifest)).toContain('horizontalpodautoscaler.autoscaling/orders configured');
    const row = (await kubectl('get', 'hpa', '-n', 'orders')).split('\n')[1].split(/\s{2,}/);
    expect(row.slice(0, 5)).toEqual(['orders', 'Deployment/orders', 'cpu: <unknown>/80%', '1', '6']);

    appendDeploymentLog(store, 'orders', 'orders', 'orders', '{"level":"INFO","message":"disrupting node(s)"}');
    expect(await kubectl('logs', '-n', 'orders', 'deployment/orders', '-c', 'orders', '--tail=5')).toBe('{"level":"INFO","message":"disrupting node(s)"}\n');
  });

  it('serves the Karpenter kinds by plural, singular and short name', async () => {
    store.create('ec2nodeclasses', { metadata: { name: 'default' }, spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0f676a166352f02ab' }], role: 'karpenter-eksworkshop-eksctl' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    store.create('nodepools', { metadata: { name: 'default' }, spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } } }, status: { resources: { nodes: '1' }, conditions: [{ type: 'Ready', status: 'True' }] } });
    store.create('nodeclaims', {
      metadata: { name: 'default-m4bv4', labels: { 'node.kubernetes.io/instance-type': 'm6a.large', 'karpenter.sh/capacity-type': 'on-demand', 'topology.kubernetes.io/zone': 'us-west-2b', 'karpenter.sh/nodepool': 'default' } },
      spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
      status: { nodeName: 'ip-10-0-24-213.us-west-2.compute.internal', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const claims = (await kubectl('get', 'nodeclaims')).split('\n');
    expect(claims[0].split(/\s+/)).toEqual(['NAME', 'TYPE', 'CAPACITY', 'ZONE', 'NODE', 'READY', 'AGE']);
    expect(claims[1].split(/\s+/).slice(0, 6)).toEqual(['default-m4bv4', 'm6a.large', 'on-demand', 'us-west-2b', 'ip-10-0-24-213.us-west-2.compute.internal', 'True']);
    expect((await kubectl('get', 'nodepool')).split('\n')[1].split(/\s+/).slice(0, 4)).toEqual(['default', 'default', '1', 'True']);
    expect(await kubectl('get', 'ec2nc', 'default', '-o', 'yaml')).toContain('- id: ami-0f676a166352f02ab');
    expect(await kubectl('get', 'events', '-A')).toMatch(/LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
  });

  it("shows a ReplicaSet's FailedCreate for a pod name already taken, by field selector and in describe, and refuses a field events do not select on", async () => {
    const [rs] = store.list('replicasets', 'orders');
    // The name the controller draws next is taken (by a pod of nobody's): it records FailedCreate and draws again.
    const taken = `${rs.metadata.name}-bbbbb`;
    store.create('pods', { metadata: { name: taken, namespace: 'orders' }, spec: { containers: [{ name: 'sleep', image: 'public.ecr.aws/docker/library/busybox:1.36' }] } });
    drawSame = true;
    await kubectl('scale', 'deployment/orders', '-n', 'orders', '--replicas=2');
    // Seven names a pass, all taken. The controller comes back to the Deployment on its own, as client-go requeues it:
    // three passes' worth, though nothing else in the cluster changes after the second.
    const failures = () => Number(store.list('events', 'orders').find((e) => e.reason === 'FailedCreate')?.count ?? 0);
    await until(() => failures() >= 21, 'three passes of FailedCreate');
    drawSame = false;
    await until(() => store.list('pods', 'orders').filter((p) => p.metadata.ownerReferences?.[0]?.name === rs.metadata.name).length === 2, 'the second replica');

    const failed = (await kubectl('get', 'events', '-n', 'orders', '--field-selector', 'reason=FailedCreate,type=Warning,source=replicaset-controller')).trim().split('\n');
    expect(failed[0].split(/\s{2,}/)).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(failed).toHaveLength(2);
    expect(failed[1]).toMatch(new RegExp(`^\\S+\\s+Warning\\s+FailedCreate\\s+replicaset/${rs.metadata.name}\\s+Error creating: pods "${taken}" already exists$`));
    expect(await kubectl('describe', 'rs', '-n', 'orders', rs.metadata.name)).toMatch(new RegExp(`Warning\\s+FailedCreate\\s+\\S+\\s+(\\(x\\d+ over \\S+\\)\\s+)?replicaset-controller\\s+Error creating: pods "${taken}" already exists`));

    const refused = await kubectl('get', 'events', '-n', 'orders', '--field-selector', 'message=x').then(() => '', (e) => e.stderr as string);
    expect(refused).toContain('Error from server (BadRequest)');
    expect(refused).toContain('field label not supported: message');
  });
});
