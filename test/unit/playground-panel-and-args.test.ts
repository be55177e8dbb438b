import { describe, expect, it } from 'vitest';
import { nodeGroupLabel, renderClusterPanel } from '../../src/playground/web/cluster-panel-html.js';
import { parsePlaygroundArgs } from '../../src/playground/parse-playground-args.js';
import { exampleCommands, playgroundClustersConfig } from '../../src/playground/playground-people.js';

const state = {
  clusters: [{
    name: 'demo', region: 'us-west-2', version: '1.31', platformVersion: 'eks.24', status: 'UPDATING',
    updates: [{ id: 'u1', type: 'VersionUpdate', status: 'Failed', params: [{ type: 'Version', value: '1.31' }], errors: [{ errorCode: 'Unknown', errorMessage: 'rolled back <b>' }] }],
    nodegroups: [{ name: 'demo-ng', status: 'UPDATING', version: '1.30' }],
    addons: [],
    nodes: [
      { name: 'ip-1', kubeletVersion: 'v1.30.14-eks-f69f56f', ready: true, unschedulable: true, nodegroup: 'demo-ng' },
      { name: 'ip-2', kubeletVersion: 'v1.31.14-eks-f69f56f', ready: false, nodegroup: 'demo-ng' },
      { name: 'fargate-ip-3', kubeletVersion: 'v1.30.8-eks-2d5f260', ready: true, computeType: 'fargate' },
    ],
    nodeclaims: [{ name: 'default-abc', nodepool: 'default', ready: true, drifted: true, deleting: false }],
    pdbs: [{ namespace: 'shop', name: 'api-pdb', disruptionsAllowed: 0, stuck: true, blockedPods: [{ name: 'api-7d9', node: 'ip-1' }] }],
    workloads: [
      { namespace: 'kube-system', name: 'coredns', replicas: 2, available: 2, failsReadinessOn: null },
      { namespace: 'shop', name: 'web', replicas: 3, available: 3, failsReadinessOn: null },
      { namespace: 'shop', name: 'api', replicas: 2, available: 0, failsReadinessOn: '1.31' },
    ],
  }],
};

describe('cluster panel', () => {
  it('shows the control plane, its last update with the error, and nodes grouped with their kubelet minors', () => {
    const html = renderClusterPanel(state, 'demo');
    expect(html).toContain('<span class="cp-version" data-testid="cp-version">1.31</span> <span class="badge badge-busy">UPDATING</span>');
    expect(html).toContain('<span class="badge badge-bad">Failed</span> to 1.31 — Unknown: rolled back &lt;b&gt;');
    expect(html).toContain('managed node group demo-ng <span class="muted">2 nodes: 1× 1.30, 1× 1.31</span>');
    expect(html).toMatch(/ip-1<\/span> 1\.30 <span class="badge badge-ok">Ready<\/span> <span class="badge badge-busy">cordoned<\/span>/);
    expect(html).toMatch(/ip-2<\/span> 1\.31 <span class="badge badge-bad">NotReady<\/span>/);
    expect(html).toContain('Fargate <span class="muted">1 node: 1× 1.30</span>');
  });

  it('shows NodeClaims and the pods a PDB with no disruption left is blocking, with a toggle to unstick it', () => {
    const html = renderClusterPanel(state, 'demo');
    expect(html).toContain('1 NodeClaims, 1 drifted');
    expect(html).toContain('<span class="badge badge-bad">0 disruptions allowed</span> <span class="badge badge-bad">stuck</span>');
    expect(html).toContain('data-pdb-namespace="shop" data-pdb-name="api-pdb" data-pdb-stuck="false"');
    expect(html).toContain('>Unstick</button>');
    expect(html).toContain('blocks eviction of <span class="node-name">api-7d9</span>');
  });

  it('lists the workloads with a control to break one on the version the nodes move to next, or heal it', () => {
    const html = renderClusterPanel(state, 'demo');
    expect(html).not.toContain('kube-system/coredns');
    // The nodes run 1.30 and 1.31: the oldest kubelet moves to 1.31 next.
    expect(html).toContain('shop/web</span> <span class="badge badge-ok">3/3 available</span> <button type="button" class="small-button" data-workload-namespace="shop" data-workload-name="web" data-workload-fail="1.31"');
    expect(html).toContain('>Break on 1.31</button>');
    expect(html).toContain('shop/api</span> <span class="badge badge-bad">0/2 available</span> <span class="badge badge-bad">fails on 1.31</span>');
    expect(html).toContain('data-workload-name="api" data-workload-fail="" data-focus-key="workload:shop/api">Heal</button>');
  });

  it('groups nodes as the status card does', () => {
    expect(nodeGroupLabel({ nodepool: 'default' })).toBe('Karpenter NodePool default');
    expect(nodeGroupLabel({})).toBe('self-managed');
  });

  it('says so when the simulator has no clusters', () => {
    expect(renderClusterPanel({ clusters: [] })).toContain('The simulator has no clusters.');
  });
});

describe('npm run playground arguments', () => {
  it('defaults to the demo scenario at 60× on port 8080', () => {
    expect(parsePlaygroundArgs([])).toEqual({ kind: 'run', options: { scenario: 'demo', speed: 60, port: 8080, host: '127.0.0.1', socketMode: false } });
    expect(parsePlaygroundArgs(['--socket-mode'])).toMatchObject({ kind: 'run', options: { socketMode: true } });
    expect(parsePlaygroundArgs(['--scenario', 'workshop', '--speed', '120', '--port', '0'])).toMatchObject({ options: { scenario: 'workshop', speed: 120, port: 0 } });
  });

  it('names the bad option', () => {
    expect(parsePlaygroundArgs(['--speed', 'fast'])).toEqual({ kind: 'error', message: '--speed must be a number above 0 and at most 10000, got "fast"' });
    expect(parsePlaygroundArgs(['--port', '70000'])).toEqual({ kind: 'error', message: '--port must be a port number (0–65535), got "70000"' });
    expect(parsePlaygroundArgs(['--color'])).toMatchObject({ kind: 'error', message: expect.stringContaining("'--color'") });
  });
});

describe('the playground workspace', () => {
  it('offers example commands for the first cluster and its next minor', () => {
    expect(exampleCommands({ name: 'eksworkshop-eksctl', version: '1.25' })).toEqual([
      'help', 'status eksworkshop-eksctl', 'plan eksworkshop-eksctl --to 1.26', 'start eksworkshop-eksctl --to 1.26', 'jobs eksworkshop-eksctl',
    ]);
    expect(exampleCommands(undefined)).toEqual(['help']);
  });

  it('lets alice start, alice and bob approve, under the two-person rule, from the one channel', () => {
    const [cluster] = playgroundClustersConfig([{ name: 'demo', region: 'us-west-2' }]).clusters;
    expect(cluster).toMatchObject({ channels: ['C0PLAYGRND'], requesters: ['U0ALICE'], approvers: ['U0ALICE', 'U0BOB'], twoPersonRule: true });
  });
});
