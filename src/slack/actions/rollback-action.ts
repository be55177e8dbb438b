/**
 * The "Roll back to N-1" button of a successful upgrade's summary card and of a failed verify card (issue 10):
 * `rollback:start`, value JSON {jobId, cluster, to, until}. A click after `until` (EKS's 7-day window) is answered
 * with the date the window closed and changes nothing; otherwise the click runs `/eks-upgrade rollback <cluster>
 * --to <to>` for the clicker through the same router as the slash command — the same channel and requester
 * checks, the same rollback preflight, the same audit — and its answer is told to the clicker.
 */

import type { App, BlockAction } from '@slack/bolt';
import { z } from 'zod';
import { formatUtc } from '../../planning/rollback-preflight.js';
import type { SlashCommandRouter } from '../../ports/slack/slash-command.js';
import { parseJsonAs } from '../../report/blocks/reason-modal.js';
import { ROLLBACK_ACTION_ID, rollbackOfferBlocks } from '../../report/blocks/render-timeline-event.js';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../log/logger.js';
import { defineAction, routedOutcome, type ActionDeps } from './define-action.js';

const offerSchema = z.object({ jobId: z.string().min(1), cluster: z.string().min(1), to: z.string().regex(/^\d+\.\d+$/), until: z.number() });
type Offer = z.infer<typeof offerSchema>;

export function registerRollbackAction(app: App, kit: ActionDeps, commands: SlashCommandRouter): void {
  const { deps, logger } = kit;
  const refused = (offer: Offer, at: number, outcome: string, text: string) =>
    ({ outcome, audit: { at, cluster: offer.cluster, action: 'rollback', outcome: 'refused', job: offer.jobId, detail: text }, tell: text });
  defineAction(app, kit, {
    id: ROLLBACK_ACTION_ID,
    read: (value) => parseJsonAs(offerSchema, value),
    unreadable: { log: 'rollback click without a readable offer ignored', tell: 'This button does not carry a rollback the bot knows; nothing was changed.' },
    authorize: async (offer, click) => {
      const now = deps.clock.now();
      if (now > offer.until) {
        const text =
          `This Roll back button is out of date: EKS's 7-day window to roll ${offer.cluster} back to ${offer.to} closed on ${formatUtc(offer.until)}. ` +
          'Nothing was started; a rollback is no longer possible, so fix forward.';
        return { refuse: { ...refused(offer, now, 'stale', text), show: () => retireButton(click.client, click.body, offer, now, logger) } };
      }
      // Only a card of an upgrade this bot ran on that cluster rolls it back: a rehearsal's card (posted before
      // rehearsals stopped offering the button, issue 23) names a job of the rehearsal's own engine, unknown here.
      const job = await deps.control.getJob(offer.jobId).then((found) => found, () => 'unreadable' as const);
      if (job === 'unreadable' || !job || job.cluster !== offer.cluster || job.dryRun) {
        const text = job === 'unreadable'
          ? `Could not read the job this Roll back button belongs to (\`${offer.jobId}\`): nothing was started; try again in a minute.`
          : `This Roll back button is not from an upgrade of ${offer.cluster} the bot ran (a rehearsal's card, or a job too old to be kept): nothing was started. ` +
            `To roll ${offer.cluster} back, run \`/eks-upgrade rollback ${offer.cluster} --to ${offer.to}\`.`;
        return { refuse: refused(offer, now, 'refused', text) };
      }
      return { grant: undefined };
    },
    act: async (offer, _grant, click) => {
      const prepared = commands.prepare({
        text: `rollback ${offer.cluster} --to ${offer.to}`,
        userId: click.user,
        channelId: click.place.channel,
        respond: (reply) => click.tell(reply.text ?? ''),
      });
      const outcome = await prepared.run();
      return { outcome: routedOutcome(outcome), log: { level: 'info', msg: 'rollback button handled', fields: { cluster: offer.cluster, to: offer.to, outcome } } };
    },
  });
}

/**
 * The card whose button was clicked too late: its Roll back button becomes the plain line saying until when it was
 * possible (chat.update of that message, the other blocks as they were). Best effort: the answer to the clicker
 * does not depend on it.
 */
async function retireButton(client: WebClient, body: BlockAction, offer: Offer, now: number, logger: Logger): Promise<void> {
  const blocks = body.message?.blocks as Array<{ type?: string; block_id?: string }> | undefined;
  if (!body.channel?.id || !body.message?.ts || !blocks?.some((block) => block.block_id === 'rollback')) return;
  const line = rollbackOfferBlocks(offer, now);
  const index = blocks.findIndex((block) => block.block_id === 'rollback');
  // The button's block and the "works until" context line after it give way to the plain line.
  const next = [...blocks.slice(0, index), ...line, ...blocks.slice(index + 2)];
  try {
    await client.chat.update({ channel: body.channel.id, ts: body.message.ts, text: body.message.text ?? '', blocks: next as never });
  } catch (error) {
    logger.warn({ err: error }, 'could not turn an outdated Roll back button into a plain line');
  }
}
