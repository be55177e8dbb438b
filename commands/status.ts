import type { KnownBlock } from '@slack/types';
import type { BotDeps } from '../src/bot-deps.js';
import { findCluster, type ClusterConfig } from '../src/config/clusters-config.js';
import { formatMinor, minorDistance, minorOfKubelet, parseMinor } from '../src/domain/minor-version.js';
import type { KubeObject } from '../src/ports/kube-port.js';
import type { SlackMessage } from '../src/slack/slack-message.js';
import { attempt, describeFailure } from './command-failure.js';
import { clustersVisibleFrom, type CommandHandler } from './command-context.js';
import { readArgs } from './parse-command.js';

/**
 * `/eks-upgrade status [<cluster> | --all]`, walking-skeleton edition: control-plane and platform version, cluster
 * status, and the kubelet versions of its nodes grouped by node group. The full card (add-ons, insights, support
 * dates) replaces this in the read path.
 */
export const statusCommand: CommandHandler = async (context) => {
  const command = readArgs('status', context.args);
  const clusters = command.target
    ? [findCluster(context.deps.config, command.target)!]
    : clustersVisibleFrom(context.deps, context.channelId);
  // One cluster: its failure is the command's. Several: a cluster that cannot be read gets a line, the others a card.
  const cards = command.target
    ? [await readClusterStatus(context.deps, clusters[0])]
    : await Promise.all(clusters.map((cluster) => readClusterStatus(context.deps, cluster).catch((error) => failureCard(cluster.name, error))));
  const blocks = cards.flatMap((card, index) => [...(index > 0 ? [{ type: 'divider' } as KnownBlock] : []), ...(card.blocks ?? [])]);
  await context.respond({
    text: cards.map((card) => card.text).join('\n\n'),
    // Slack refuses a message of more than 50 blocks; a long fleet falls back to the text.
    ...(blocks.length <= MAX_BLOCKS ? { blocks } : {}),
  });
};

const MAX_BLOCKS = 50;

function failureCard(name: string, error: unknown): SlackMessage {
  const text = `*${name}*: :warning: ${describeFailure(error)}`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

export interface NodeGroupSummary {
  kind: 'managed node group' | 'Karpenter NodePool' | 'Fargate' | 'self-managed';
  name: string;
  /** kubelet version → node count */
  versions: Map<string, number>;
}

/** The compute a node belongs to, from the labels EKS, Karpenter and eksctl put on it. */
export function nodeGroupOf(node: KubeObject): { kind: NodeGroupSummary['kind']; name: string } {
  const labels = node.metadata.labels ?? {};
  if (labels['eks.amazonaws.com/compute-type'] === 'fargate') return { kind: 'Fargate', name: labels['eks.amazonaws.com/fargate-profile'] ?? 'fargate' };
  if (labels['eks.amazonaws.com/nodegroup']) return { kind: 'managed node group', name: labels['eks.amazonaws.com/nodegroup'] };
  if (labels['karpenter.sh/nodepool']) return { kind: 'Karpenter NodePool', name: labels['karpenter.sh/nodepool'] };
  return { kind: 'self-managed', name: labels['alpha.eksctl.io/nodegroup-name'] ?? 'unlabelled nodes' };
}

export function groupNodes(nodes: KubeObject[]): NodeGroupSummary[] {
  const groups = new Map<string, NodeGroupSummary>();
  for (const node of nodes) {
    const { kind, name } = nodeGroupOf(node);
    const key = `${kind}/${name}`;
    const group = groups.get(key) ?? { kind, name, versions: new Map() };
    const version = String(node.status?.nodeInfo?.kubeletVersion ?? 'unknown');
    group.versions.set(version, (group.versions.get(version) ?? 0) + 1);
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}

async function readClusterStatus(deps: BotDeps, cluster: ClusterConfig): Promise<SlackMessage> {
  const eks = deps.eks({ region: cluster.region, roleArn: cluster.roleArn });
  const described = await attempt(`DescribeCluster for ${cluster.name}`, () => eks.describeCluster(cluster.name));
  const kube = await attempt(`Connecting to the Kubernetes API of ${cluster.name}`, () => deps.kube(cluster));
  const nodes = await attempt(`Listing the nodes of ${cluster.name}`, () => kube.list('nodes'));
  return renderClusterStatus(cluster.name, described, groupNodes(nodes.items));
}

export function renderClusterStatus(
  name: string,
  described: { version?: string; platformVersion?: string; status?: string },
  groups: NodeGroupSummary[],
): SlackMessage {
  const controlPlane = parseMinor(described.version ?? '');
  const headline = `*${name}*: control plane ${described.version ?? '?'} (platform ${described.platformVersion ?? '?'}), ${described.status ?? 'status unknown'}`;
  const nodeLines = groups.map((group) => {
    const count = [...group.versions.values()].reduce((sum, n) => sum + n, 0);
    const versions = [...group.versions].map(([version, n]) => `${version}${n > 1 ? ` ×${n}` : ''}${skewNote(controlPlane, version)}`);
    return `• ${group.kind} \`${group.name}\`: ${count} node${count === 1 ? '' : 's'}, kubelet ${versions.join(', ')}`;
  });
  const body = nodeLines.length > 0 ? nodeLines.join('\n') : '• no nodes';
  return {
    text: `${headline}\n${body}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: headline } },
      { type: 'section', text: { type: 'mrkdwn', text: `*Nodes*\n${body}` } },
    ],
  };
}

function skewNote(controlPlane: ReturnType<typeof parseMinor>, kubelet: string): string {
  const minor = minorOfKubelet(kubelet);
  if (!controlPlane || !minor) return '';
  const behind = minorDistance(minor, controlPlane);
  return behind > 0 ? ` (${behind} minor${behind === 1 ? '' : 's'} behind ${formatMinor(controlPlane)})` : '';
}
