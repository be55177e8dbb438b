/**
 * `/eks-upgrade digest`: the channel's fleet digest, posted visibly now (docs/fleet.md). The clusters
 * are those of the channel's `digests:` entry in clusters.yaml, else every cluster this channel may drive. Each row
 * has a Plan button that posts the plan in the digest's thread.
 */

import { findCluster, type ClusterConfig } from '../src/config/clusters-config.js';
import { renderDigestMessage } from '../src/report/blocks/render-digest-blocks.js';
import { collectDigestRows } from '../src/cluster-reader/collect-digest.js';
import { clustersVisibleFrom, type CommandHandler } from './routing/command-context.js';
import { CommandRejected } from './routing/command-rejected.js';
import { readArgs } from './routing/parse-command.js';
import { activeJobOf } from './status.js';

export const digestCommand: CommandHandler = async (context) => {
  const { deps } = context;
  readArgs('digest', context.args);
  const configured = (deps.config.digests ?? []).find((digest) => digest.channel === context.channelId);
  const clusters = configured
    ? configured.clusters.map((name) => findCluster(deps.config, name)).filter((cluster): cluster is ClusterConfig => cluster !== undefined)
    : clustersVisibleFrom(deps, context.channelId);
  if (clusters.length === 0) {
    throw new CommandRejected(`No cluster may be driven from this channel (<#${context.channelId}>) and no digest is configured for it; add it to a cluster's \`channels\` or to \`digests:\` in clusters.yaml.`);
  }
  const at = deps.clock.now();
  const rows = await collectDigestRows(deps, clusters, { findActive: (name) => activeJobOf(deps, name), waivers: deps.waivers });
  const message = renderDigestMessage(rows, { at, timezone: configured?.timezone ?? 'UTC', trigger: `On demand by <@${context.userId}>` });
  await context.respond({ ...message, response_type: 'in_channel' });
};
