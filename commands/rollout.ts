/**
 * `/eks-upgrade rollout --to <minor> --waves <globs>… [--soak 24h] [--max-parallel 3]` starts a rollout in waves
 * (docs/fleet.md): each wave is the clusters of clusters.yaml that this channel may drive and that match
 * its globs (a cluster goes in the first wave that matches it; clusters already at the target are left out). Only
 * someone who may start every one of them (requesters) may create it. `rollout continue|pause|resume|abort <id>`
 * (also the buttons in the rollout's thread) are for approvers of the clusters concerned.
 */

import { recordAudit } from '../src/audit/record-audit.js';
import { matchGlobs } from '../src/config/cluster-glob.js';
import { findCluster, type ClusterConfig } from '../src/config/clusters-config.js';
import { authorizeStart, formatPrincipals, isListed } from '../src/domain/authorize.js';
import { compareMinor, parseMinor } from '../src/domain/minor-version.js';
import type { RolloutWave } from '../src/ports/rollout-control.js';
import { fallbackText, listNames, mrkdwnSection } from '../src/report/blocks/block-kit-limits.js';
import { mapClusters } from '../src/cluster-reader/collect-statuses.js';
import { attempt } from './routing/command-failure.js';
import { clustersVisibleFrom, type CommandHandler } from './routing/command-context.js';
import { CommandRejected } from './routing/command-rejected.js';
import { parseDuration, readArgs } from './routing/parse-command.js';

export const rolloutCommand: CommandHandler = async (context) => {
  const { deps } = context;
  const command = readArgs('rollout', context.args);
  const rollouts = deps.rollouts;
  if (!rollouts) throw new CommandRejected('Rollouts are not available in this deployment of the bot.');
  const reply = (text: string) => context.respond({ text: fallbackText(text), blocks: [mrkdwnSection(text)] });

  if (command.rolloutId) {
    const action = command.target as 'continue' | 'pause' | 'resume' | 'abort';
    const rollout = await attempt(`Looking up rollout ${command.rolloutId}`, () => rollouts.get(command.rolloutId!));
    if (!rollout) throw new CommandRejected(`There is no rollout \`${command.rolloutId.replace(/`/g, "'")}\`.`);
    if (rollout.channel !== context.channelId) throw new CommandRejected(`Rollout \`${rollout.id}\` is driven from <#${rollout.channel}>, not here.`);
    // Continue opens the next wave: its approvers decide. Pause, resume and abort act on the whole rollout.
    const concerned = action === 'continue' ? rollout.waves[rollout.wave].clusters : rollout.waves.flatMap((wave) => wave.clusters);
    for (const name of concerned) {
      const cluster = findCluster(deps.config, name);
      if (cluster && !(await isListed(deps, context.userId, cluster.approvers))) {
        const reason = `Only approvers of ${name} may ${action} this rollout: ${formatPrincipals(cluster.approvers)}.`;
        await recordAudit(deps.audit, deps.logger, { at: deps.clock.now(), cluster: name, user: context.userId, action: `rollout-${action}`, outcome: 'refused', detail: reason, via: 'command' });
        throw new CommandRejected(reason);
      }
    }
    const result = await attempt(`${action} of rollout ${rollout.id}`, () => rollouts[action](rollout.id, context.userId));
    for (const name of concerned) {
      await recordAudit(deps.audit, deps.logger, { at: deps.clock.now(), cluster: name, user: context.userId, action: `rollout-${action}`, outcome: result.ok ? 'accepted' : 'declined', detail: result.message, via: 'command' });
    }
    if (!result.ok) throw new CommandRejected(result.message);
    return reply(result.message);
  }

  const visible = clustersVisibleFrom(deps, context.channelId);
  const taken = new Set<string>();
  const waves: RolloutWave[] = [];
  const skipped: string[] = [];
  for (const wave of command.waves!) {
    const globs = wave.split(/\s+/).filter(Boolean);
    const matched = matchGlobs(visible.map((c) => c.name), globs).filter((name) => !taken.has(name));
    if (matched.length === 0) {
      throw new CommandRejected(`The wave \`${globs.join(' ')}\` matches no cluster this channel may drive (${visible.map((c) => `\`${c.name}\``).join(', ') || 'none'}); nothing was started.`);
    }
    const clusters: string[] = [];
    for (const name of matched) taken.add(name);
    // Read as `status --all` reads a fleet, several clusters of each account and Region at once (500 one after the
    // other took ≈ 10 s).
    const versions = await mapClusters(matched.map((name) => findCluster(deps.config, name)!), deps.statusConcurrency, async (cluster) => {
      const { name } = cluster;
      return (await attempt(`DescribeCluster for ${name}`, () => deps.eks({ region: cluster.region, roleArn: cluster.roleArn }).describeCluster(name))).version ?? '';
    });
    for (const [index, name] of matched.entries()) {
      const version = versions[index]!;
      const current = parseMinor(version);
      if (current && compareMinor(current, parseMinor(command.to!)!) >= 0) skipped.push(`${name} (${version})`);
      else clusters.push(name);
    }
    if (clusters.length > 0) waves.push({ globs, clusters });
  }
  if (waves.length === 0) throw new CommandRejected(`Every cluster of these waves is already at ${command.to} or newer: ${skipped.join(', ')}. Nothing to roll out.`);
  for (const name of waves.flatMap((wave) => wave.clusters)) {
    const decision = await authorizeStart(deps, findCluster(deps.config, name) as ClusterConfig, context.userId);
    if (!decision.allowed) throw new CommandRejected(`${decision.reason} A rollout needs someone who may start every cluster in it; nothing was started.`);
  }
  const rollout = await attempt('Creating the rollout', () =>
    rollouts.create({
      to: command.to!,
      waves,
      soakMs: parseDuration(command.soak ?? '24h')!,
      maxParallel: Number(command.maxParallel ?? 3),
      requestedBy: context.userId,
      channel: context.channelId,
    }),
  );
  for (const name of waves.flatMap((wave) => wave.clusters)) {
    await recordAudit(deps.audit, deps.logger, { at: deps.clock.now(), cluster: name, user: context.userId, action: 'rollout', outcome: 'accepted', detail: `rollout ${rollout.id} to ${rollout.to}`, via: 'command' });
  }
  const left = skipped.length > 0 ? ` Left out, already at ${command.to} or newer: ${listNames(skipped, { where: 'see `status --all`' })}.` : '';
  await reply(`Created rollout \`${rollout.id}\` to ${rollout.to} in ${waves.length} waves; wave 1 (${listNames(waves[0].clusters, { where: "all listed in the rollout's thread" })}) waits for an approver's Continue in its thread.${left}`);
};
