import { describe, expect, it } from 'vitest';
import { readFailed } from '../../src/planning/cluster-snapshot.js';
import { statusJson } from '../../src/report/json-output.js';
import { renderStatusMessages } from '../../src/report/blocks/render-status-blocks.js';
import { renderStatusText } from '../../src/report/render-status-text.js';
import { checkMessageBlocks } from '@eks-upgrade-bot/sim';
import { buildClusterStatus, type ClusterStatus } from '../../src/report/cluster-status.js';
import { DAY, healthySnapshot, mixedCluster, NOW } from './check-snapshot-fixture.js';

/** Status renderers: snapshot-tested output, plus Slack's limits on a fleet. */
const job = { jobId: 'job-7', state: 'waiting-approval', from: '1.30', to: '1.31', currentStep: 'gate', threadUrl: 'https://slack.com/archives/C0DEMO/p1700000000000100' };

function statuses(): ClusterStatus[] {
  const mixed = buildClusterStatus(mixedCluster(), job);
  const unreachable = healthySnapshot();
  const down = readFailed<never>('Connecting to the Kubernetes API of edge failed: ECONNRESET.');
  unreachable.name = 'edge';
  unreachable.kube = { ...unreachable.kube, nodes: down, pods: down, deployments: down, statefulsets: down, pdbs: down, pvcs: down, hpas: down, karpenter: down };
  const failed: ClusterStatus = { name: 'gone', region: 'eu-west-1', nodes: [], addons: [], problems: [], error: 'DescribeCluster for gone failed: ResourceNotFoundException: No cluster found for name: gone. Check the cluster name and region in clusters.yaml.' };
  return [mixed, buildClusterStatus(unreachable), failed];
}

describe('status model', () => {
  it('groups nodes by compute type with kubelet counts and skew, and add-ons against the current and next minor', () => {
    const status = buildClusterStatus(mixedCluster());
    expect(status.nodes.map((g) => `${g.computeType}/${g.name}:${g.nodes}`)).toEqual([
      'managed-nodegroup/ng-a:2',
      'managed-nodegroup/orders:1',
      'karpenter/default:2',
      'self-managed/carts:1',
      'fargate/fp:1',
    ]);
    expect(status.nodes[0]).toMatchObject({ versions: [{ kubelet: 'v1.30.9-eks-0123abc', count: 2, minor: '1.30', behind: 0 }], skew: { maxBehind: 0, allowed: 3, withinPolicy: true } });
    expect(status.addons.find((a) => a.name === 'kube-proxy')).toEqual({
      name: 'kube-proxy', version: 'v1.30.9-eksbuild.3', status: 'ACTIVE', defaultForCurrent: 'v1.30.9-eksbuild.3', defaultForNext: 'v1.31.3-eksbuild.2', updateAvailable: false, nextMinorUpdate: 'required',
    });
    const day = (days: number) => new Date(NOW + days * DAY).toISOString().slice(0, 10);
    expect(status.support).toEqual({ phase: 'standard', endOfStandardSupport: day(320), endOfExtendedSupport: day(685), upgradePolicy: 'EXTENDED', daysLeft: 320, nextMinor: '1.31', nextOffered: true, newestOffered: '1.33' });
    expect(status.insights).toEqual({ passing: 1, warning: 0, error: 0, unknown: 0 });
  });

  it('JSON has the documented shape', () => {
    const json = statusJson(statuses(), NOW) as { clusters: ClusterStatus[] };
    expect(json.clusters.map((c) => c.name)).toEqual(['demo', 'edge', 'gone']);
    expect(Object.keys(json.clusters[0])).toEqual(expect.arrayContaining(['name', 'version', 'platformVersion', 'status', 'support', 'nodes', 'addons', 'insights', 'activeJob']));
    expect(json.clusters[2].error).toMatch(/ResourceNotFoundException/);
  });
});

describe('status renderers', () => {
  it('terminal: one cluster as a card with aligned tables', () => {
    expect(renderStatusText([statuses()[0]])).toMatchSnapshot();
  });

  it('terminal: several clusters as one table, error rows included', () => {
    expect(renderStatusText(statuses())).toMatchSnapshot();
  });

  it('Slack: one cluster card', () => {
    expect(renderStatusMessages([statuses()[0]])).toMatchSnapshot();
  });

  it('Slack: --all as one line per cluster, the unreadable one as an error row', () => {
    const messages = renderStatusMessages(statuses());
    expect(messages).toMatchSnapshot();
    const text = JSON.stringify(messages);
    expect(text).toContain(':x: `gone` (eu-west-1) — could not be read');
    expect(text).toContain('not read: Kubernetes API');
  });

  it('Slack: a fleet of 400 clusters is split over messages within Slack limits and says what did not fit', () => {
    const base = statuses();
    const fleet = Array.from({ length: 400 }, (_, i) => ({ ...base[i % 3], name: `fleet-${String(i).padStart(3, '0')}` }));
    const messages = renderStatusMessages(fleet, { maxMessages: 4 });
    expect(messages.length).toBeLessThanOrEqual(4);
    for (const message of [...messages, ...renderStatusMessages(statuses()), ...renderStatusMessages([statuses()[0]])]) expect(checkMessageBlocks(message.blocks)).toEqual([]);
    let shown = 0;
    for (const message of messages) {
      expect(message.blocks!.length).toBeLessThanOrEqual(50);
      for (const block of message.blocks!) {
        const text = (block as any).text?.text ?? (block as any).elements?.[0]?.text ?? '';
        expect(text.length).toBeLessThanOrEqual(3000);
        shown += (text.match(/`fleet-\d{3}`/g) ?? []).length;
      }
    }
    const overflow = JSON.stringify(messages).match(/(\d+) more clusters did not fit in Slack/);
    expect(shown + Number(overflow?.[1] ?? 0)).toBe(400);
  });
});
