import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { closeWatches, type SimKubeStoreImpl, type SimServer } from '@eks-upgrade-bot/sim';
import { createEksPortFactory } from '../../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../../src/kube/client-node-adapter.js';
import type { KubeObject } from '../../../src/ports/kube-port.js';
import { SIM_CREDENTIALS, useSim} from '@eks-upgrade-bot/sim/kit';
import { until } from '../../support/until.js';

/**
 * The simulated apiserver refuses what a real one refuses (issue 24), through the real kubectl, client-node and
 * plain HTTP: Karpenter's CRD rules (422 Invalid with every cause), strategic-merge patch on a custom resource
 * (415), an empty SelfSubjectAccessReview (422), and resourceVersions compacted by age (a watch gets an ERROR event
 * with 410 Expired, an exact list 410) — after which the bot lists again.
 */
const run = promisify(execFile);
const sim = useSim();
const CLUSTER = 'eksworkshop-eksctl';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function kubectl(s: SimServer, input: string | undefined, ...args: string[]): Promise<{ ok: boolean; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sim-strict-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'config'), s.kubeconfig());
  const child = run('kubectl', ['--kubeconfig', join(dir, 'config'), '--context', CLUSTER, ...args], { timeout: 20_000 });
  if (input !== undefined) {
    child.child.stdin!.end(input);
  }
  try {
    const { stdout } = await child;
    return { ok: true, out: stdout };
  } catch (error) {
    return { ok: false, out: String((error as { stderr?: string }).stderr ?? error) };
  }
}

const api = (s: SimServer, path: string, init?: RequestInit) => fetch(`${s.url}/k8s/${CLUSTER}${path}`, init);

const nodePool = (budget: object) =>
  JSON.stringify({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'strict' },
    spec: { disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '30s', budgets: [budget] }, template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } } },
  });

const nodeClass = (terms: unknown) =>
  JSON.stringify({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'strict' }, spec: { amiFamily: 'AL2023', amiSelectorTerms: terms, role: 'r', subnetSelectorTerms: [{ id: 'subnet-1' }], securityGroupSelectorTerms: [{ id: 'sg-1' }] } });

describe('Karpenter custom resources validated as their CRDs do', () => {
  it('a NodePool budget reason outside the enum, and schedule without duration, are 422 Invalid with each cause (kubectl)', async () => {
    const s = await sim('workshop');
    const bogus = await kubectl(s, nodePool({ nodes: '1', reasons: ['Bogus'] }), 'apply', '-f', '-');
    expect(bogus.ok).toBe(false);
    expect(bogus.out).toContain('Unsupported value: "Bogus": supported values: "Underutilized", "Empty", "Drifted"');
    const res = await api(s, '/apis/karpenter.sh/v1/nodepools', { method: 'POST', headers: { 'content-type': 'application/json' }, body: nodePool({ nodes: 'many', schedule: '0 9 * * *' }) });
    expect(res.status).toBe(422);
    const status = await res.json();
    expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, details: { name: 'strict', group: 'karpenter.sh' } });
    expect(status.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.disruption.budgets[0].nodes', 'spec.disruption.budgets']);
    expect(status.message).toContain("'schedule' must be set with 'duration'");
    expect((await kubectl(s, nodePool({ nodes: '1', reasons: ['Drifted'] }), 'apply', '-f', '-')).ok).toBe(true);
  });

  it('an EC2NodeClass needs amiSelectorTerms, and an alias stands alone (kubectl)', async () => {
    const s = await sim('workshop');
    const both = await kubectl(s, nodeClass([{ alias: 'al2023@latest', id: 'ami-0123456789abcdef0' }]), 'apply', '-f', '-');
    expect(both.out).toContain("'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms");
    const empty = await kubectl(s, nodeClass([]), 'apply', '-f', '-');
    expect(empty.out).toContain('spec.amiSelectorTerms in body should have at least 1 items');
    const two = await kubectl(s, nodeClass([{ alias: 'al2023@latest' }, { tags: { a: 'b' } }]), 'apply', '-f', '-');
    expect(two.out).toContain("'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms");
    expect((await kubectl(s, nodeClass([{ alias: 'al2023@latest' }]), 'apply', '-f', '-')).ok).toBe(true);
  });

  it('an EC2NodeClass names exactly one of role and instanceProfile, and an amiFamily unless an alias gives it (kubectl)', async () => {
    const s = await sim('workshop');
    const spec = (over: Record<string, unknown>) =>
      JSON.stringify({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'strict' }, spec: { amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }], subnetSelectorTerms: [{ id: 'subnet-1' }], securityGroupSelectorTerms: [{ id: 'sg-1' }], ...over } });
    const neither = await kubectl(s, spec({ amiFamily: 'AL2023' }), 'apply', '-f', '-');
    expect(neither.ok).toBe(false);
    expect(neither.out).toContain("must specify exactly one of ['role', 'instanceProfile']");
    const both = await kubectl(s, spec({ amiFamily: 'AL2023', role: 'r', instanceProfile: 'p' }), 'apply', '-f', '-');
    expect(both.out).toContain("must specify exactly one of ['role', 'instanceProfile']");
    const noFamily = await kubectl(s, spec({ role: 'r' }), 'apply', '-f', '-');
    expect(noFamily.out).toContain('must specify amiFamily if amiSelectorTerms does not contain an alias');
    const wrongFamily = await kubectl(s, spec({ role: 'r', amiFamily: 'Bottlerocket', amiSelectorTerms: [{ alias: 'al2023@latest' }] }), 'apply', '-f', '-');
    expect(wrongFamily.out).toContain("if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias");
    const res = await api(s, '/apis/karpenter.k8s.aws/v1/ec2nodeclasses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: spec({ role: '' }) });
    expect(res.status).toBe(422);
    const fields = ((await res.json()) as { details: { causes: Array<{ field: string }> } }).details.causes.map((c) => c.field);
    expect(fields).toEqual(['spec', 'spec.role']);
    expect((await kubectl(s, spec({ instanceProfile: 'p', amiSelectorTerms: [{ alias: 'al2023@latest' }] }), 'apply', '-f', '-')).ok).toBe(true);
  });

  it('refuses a strategic-merge patch on a custom resource with 415, and takes a merge patch', async () => {
    const s = await sim('workshop');
    const patch = (type: string) => api(s, '/apis/karpenter.sh/v1/nodepools/default', { method: 'PATCH', headers: { 'content-type': type }, body: JSON.stringify({ metadata: { labels: { strict: 'yes' } } }) });
    const strategic = await patch('application/strategic-merge-patch+json');
    expect(strategic.status).toBe(415);
    expect(await strategic.json()).toMatchObject({ reason: 'UnsupportedMediaType', code: 415 });
    expect((await patch('application/merge-patch+json')).status).toBe(200);
  });

  it('an empty SelfSubjectAccessReview is 422 Invalid', async () => {
    const s = await sim('workshop');
    const res = await api(s, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: {} }),
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ reason: 'Invalid', details: { causes: [{ field: 'spec.resourceAttributes' }] } });
  });
});

describe('resourceVersions compacted by age', () => {
  const WINDOW_MS = 300;
  const relabel = (store: SimKubeStoreImpl, name: string, value: string) => store.mutate('nodes', name, undefined, (node) => void (node.metadata.labels!['strict'] = value));
  /** Returns once the wall clock is past `since` + the window. */
  const windowPassed = (since: number) => until(() => Date.now() > since + WINDOW_MS + 50, 'the compaction window to pass');

  it('a watch from a compacted resourceVersion gets HTTP 200 and an ERROR event 410 Expired; an exact list answers 410', async () => {
    const s = await sim('demo', { strictness: { resourceVersionWindowMs: WINDOW_MS } });
    const store = s.world.kube('demo') as SimKubeStoreImpl;
    const name = store.list('nodes')[0].metadata.name;
    const old = store.resourceVersion();
    relabel(store, name, 'one');
    await windowPassed(Date.now());
    relabel(store, name, 'two');
    const watch = await fetch(`${s.url}/k8s/demo/api/v1/nodes?watch=1&resourceVersion=${old}`);
    expect(watch.status).toBe(200);
    const first = JSON.parse((await watch.text()).split('\n')[0]);
    expect(first).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(first.object.message).toContain('too old resource version');
    const list = await fetch(`${s.url}/k8s/demo/api/v1/nodes?resourceVersion=${old}&resourceVersionMatch=Exact`);
    expect(list.status).toBe(410);
  });

  it('the bot, cut off past the window, lists again on reconnecting and carries on watching', async () => {
    const s = await sim('demo', { strictness: { resourceVersionWindowMs: WINDOW_MS } });
    const store = s.world.kube('demo') as SimKubeStoreImpl;
    const eks = createEksPortFactory({ endpoint: s.url, credentials: SIM_CREDENTIALS });
    const kube = await createKubePortFactory({ eks, credentials: SIM_CREDENTIALS, watchBackoff: { initialMs: 20, maxMs: 100 } })({ name: 'demo', region: 'us-west-2' });
    const syncs: KubeObject[][] = [];
    const events: string[] = [];
    const handle = await kube.watch('nodes', {}, { onEvent: (type, node) => events.push(`${type} ${node.metadata.labels?.['strict'] ?? '-'}`), onSynced: (items) => syncs.push(items) });
    try {
      const name = syncs[0][0].metadata.name;
      // The apiserver out of reach while two changes happen more than the window apart: the first is compacted.
      s.world.cluster('demo')!.unreachable = true;
      closeWatches(store);
      relabel(store, name, 'while-away');
      await windowPassed(Date.now());
      relabel(store, name, 'later');
      s.world.cluster('demo')!.unreachable = false;
      const relisted = await until(() => syncs[1], 'the relist after 410', { timeoutMs: 15_000 });
      expect(relisted.find((node) => node.metadata.name === name)?.metadata.labels?.['strict']).toBe('later');
      relabel(store, name, 'after');
      await until(() => events.includes('MODIFIED after'), 'an event after the relist', { timeoutMs: 15_000 });
    } finally {
      handle.stop();
    }
  });
});
