/**
 * `/eks-upgrade rehearse <cluster> --to <minor> [--answers continue|remedy|stop]`: queues a rehearsal for the
 * workers (jobs/rehearsal/rehearsal-worker.ts), which read the cluster (reads only), run the real upgrade against its simulated
 * twin and post a REHEARSAL thread in this channel. Refused beside a running upgrade of the same cluster.
 */

import { findCluster } from '../src/config/clusters-config.js';
import type { CommandHandler } from './routing/command-context.js';
import { CommandRejected } from './routing/command-rejected.js';
import { readArgs } from './routing/parse-command.js';
import { fallbackText, mrkdwnSection } from '../src/report/blocks/block-kit-limits.js';

export const rehearseCommand: CommandHandler = async (context) => {
  const { deps } = context;
  const command = readArgs('rehearse', context.args);
  const cluster = findCluster(deps.config, command.target!)!;
  if (!deps.rehearsalQueue) throw new CommandRejected('This bot has no rehearsal queue; run `npx eks-upgrade rehearse` from a terminal instead.');
  const running = await deps.control.findActive(cluster.name);
  if (running) {
    throw new CommandRejected(`An upgrade of ${cluster.name} is running (${running.from} → ${running.to}, job \`${running.jobId}\`): a rehearsal would read a cluster in motion. Rehearse once it has ended.`);
  }
  const answers = command.answers ?? 'continue';
  const id = await deps.rehearsalQueue.enqueue({ cluster: cluster.name, region: cluster.region, to: command.to!, answers, channel: context.channelId, requestedBy: context.userId });
  const text = `Rehearsing the upgrade of ${cluster.name} to ${command.to} on a simulated twin (gates answered: ${answers}; rehearsal \`${id}\`). Nothing is changed on ${cluster.name}: its REHEARSAL thread opens in this channel.`;
  await context.respond({ text: fallbackText(text), blocks: [mrkdwnSection(`:performing_arts: ${text}`)] });
};
