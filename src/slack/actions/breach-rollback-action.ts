/**
 * The breach card's "Roll back to N-1" (issue 29): `guard:rollback`, value BreachRollbackValue (render-gate-card.ts:
 * the gate it answers and the rollback it starts). Offered while EKS's rollback window is open and the upgrade moved
 * the control plane; requesters may click it, as they may start a rollback today.
 *
 * One click runs `/eks-upgrade rollback <cluster> --to <to>` for the clicker through the same router as the slash
 * command — the same channel and requester checks, the same rollback preflight, the same audit — with the held
 * upgrade as the job it replaces: only once all of those pass is the breach card answered with Abort (the job stops
 * at its safe point, where the guard held it) and, when the job has let go of the cluster, the rollback started.
 * If the rollback cannot start, the clicker is told why and the upgrade stays held. The abort and the rollback's
 * start are said in the upgrade's thread.
 */

import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { recordAudit } from '../../audit/record-audit.js';
import type { Logger } from '../../log/logger.js';
import { formatUtc } from '../../planning/rollback-preflight.js';
import type { BotDeps } from '../../ports/bot-deps.js';
import type { SlashCommandRouter } from '../../ports/slack/slash-command.js';
import { fallbackText, mrkdwnSection } from '../../report/blocks/block-kit-limits.js';
import { parseJsonAs } from '../../report/blocks/reason-modal.js';
import { mention } from '../../report/format-text.js';
import { createChannelPoster } from '../channel-poster.js';
import { BREACH_ROLLBACK_ACTION_ID, type BreachRollbackValue } from '../../report/blocks/render-gate-card.js';
import { defineAction, routedOutcome, type ActionDeps, type Answer } from './define-action.js';
import { gateAnswerReply } from './gate-click.js';
import type { ClickPlace } from './tell-user.js';

const valueSchema = z.object({
  jobId: z.string().min(1),
  gateId: z.string().min(1),
  revision: z.number().int().nonnegative(),
  cluster: z.string().min(1),
  to: z.string().regex(/^\d+\.\d+$/),
  until: z.number(),
});

/** How long the click waits (wall time) for the aborted upgrade to let go of the cluster before it gives up. */
export const RELEASE_WAIT_MS = 5 * 60_000;
const RELEASE_POLL_MS = 250;

export function registerBreachRollbackAction(app: App, kit: ActionDeps, commands: SlashCommandRouter): void {
  const { deps, logger } = kit;
  defineAction(app, kit, {
    id: BREACH_ROLLBACK_ACTION_ID,
    read: (value): BreachRollbackValue | undefined => parseJsonAs(valueSchema, value),
    unreadable: { log: 'breach-card rollback click without a readable offer ignored', tell: 'This button does not carry a rollback the bot knows; nothing was changed.' },
    authorize: async (offer) => {
      const refuse = (outcome: string, text: string): { refuse: Answer } =>
        ({ refuse: { outcome, audit: { cluster: offer.cluster, action: 'rollback', outcome: 'refused', job: offer.jobId, gate: offer.gateId, detail: text }, tell: text } });
      if (deps.clock.now() > offer.until) {
        return refuse('stale', `EKS's 7-day window to roll ${offer.cluster} back to ${offer.to} closed on ${formatUtc(offer.until)}: nothing was started and the upgrade stays held. Resume, Force or Abort it on its card.`);
      }
      const job = await deps.control.getJob(offer.jobId).then((found) => found, () => 'unreadable' as const);
      if (job === 'unreadable') return refuse('error', `Could not read the upgrade this card belongs to (\`${offer.jobId}\`): nothing was changed; try again in a minute.`);
      if (!job || job.cluster !== offer.cluster || job.dryRun) {
        return refuse('refused', `This Roll back button is not from an upgrade of ${offer.cluster} the bot is running: nothing was started. To roll ${offer.cluster} back, run \`/eks-upgrade rollback ${offer.cluster} --to ${offer.to}\`.`);
      }
      if (job.openGate?.gateId !== offer.gateId || job.openGate.revision !== offer.revision) {
        return refuse('stale', `This breach card is out of date: the upgrade of ${offer.cluster} is no longer held at it (resumed, aborted, or asked again further down the thread). Nothing was started; use the latest card, or \`/eks-upgrade rollback ${offer.cluster} --to ${offer.to}\` once the upgrade has ended.`);
      }
      return { grant: undefined };
    },
    act: async (offer, _grant, click) => {
      let aborted = false;
      let answer = '';
      const prepared = commands.prepare({
        text: `rollback ${offer.cluster} --to ${offer.to}`,
        userId: click.user,
        channelId: click.place.channel,
        respond: async (reply) => {
          answer = reply.text ?? '';
          await click.tell(answer);
        },
        replacing: {
          jobId: offer.jobId,
          clear: async () => {
            const problem = await abortAndRelease(deps, offer, click.user, logger);
            aborted = problem === undefined || problem.startsWith(ABORTED_PREFIX);
            return problem;
          },
        },
      });
      const outcome = await prepared.run();
      const handled: Answer = {
        outcome: routedOutcome(outcome),
        log: { level: 'info', msg: 'breach-card rollback handled', fields: { cluster: offer.cluster, to: offer.to, job: offer.jobId, aborted, outcome } },
      };
      if (!aborted) return handled;
      const who = mention(click.user);
      const text = outcome === 'ok'
        ? `⏪ ${who} chose Roll back on the breach card: the upgrade was aborted where the guard held it. ${answer}`
        : `⚠️ ${who} chose Roll back on the breach card: the upgrade was aborted where the guard held it, but the rollback did not start: ${answer || 'see the bot\'s log'} Run \`/eks-upgrade rollback ${offer.cluster} --to ${offer.to}\` to try again.`;
      return { ...handled, show: () => sayInThread(click.client, click.place, text, logger) };
    },
  });
}

/** How a refusal after the abort begins, so the click knows the upgrade is gone although the rollback did not start. */
const ABORTED_PREFIX = 'The upgrade was aborted';

/**
 * Answers the breach card with Abort for the clicker (the Roll back authorizes it: it ends the upgrade only to undo
 * it), then waits until the job has stopped and let go of the cluster. Resolves with a sentence when it could not.
 */
async function abortAndRelease(deps: BotDeps, offer: BreachRollbackValue, userId: string, logger: Logger): Promise<string | undefined> {
  const reason = `Roll back to ${offer.to} chosen on the breach card`;
  const result = await deps.control.answerGate({ jobId: offer.jobId, gateId: offer.gateId, revision: offer.revision, action: 'abort', userId, reason });
  await recordAudit(deps.audit, logger, { at: deps.clock.now(), cluster: offer.cluster, user: userId, action: 'gate:abort', outcome: result.outcome, job: offer.jobId, gate: offer.gateId, reason, via: 'button' });
  if (result.outcome !== 'accepted') return `${gateAnswerReply(result) ?? 'The breach card was answered meanwhile.'} Nothing was started.`;
  const deadline = Date.now() + RELEASE_WAIT_MS;
  for (;;) {
    const holder = await deps.control.findActive(offer.cluster);
    if (holder?.jobId !== offer.jobId) return undefined;
    if (Date.now() >= deadline) {
      return `${ABORTED_PREFIX}, but it has not let go of ${offer.cluster} within ${RELEASE_WAIT_MS / 60_000} minutes (it stops after the AWS operation in flight): nothing was started. Run \`/eks-upgrade rollback ${offer.cluster} --to ${offer.to}\` once its summary is in the thread.`;
    }
    await new Promise((resolve) => setTimeout(resolve, RELEASE_POLL_MS));
  }
}

/** A line everyone in the upgrade's thread sees. Best effort: the clicker has been told already. */
async function sayInThread(client: WebClient, place: ClickPlace, text: string, logger: Logger): Promise<void> {
  try {
    await createChannelPoster(client).post(place.channel, { text: fallbackText(text), blocks: [mrkdwnSection(text)] }, place.threadTs);
  } catch (error) {
    logger.warn({ err: error, channel: place.channel }, 'could not say the breach-card rollback in the thread');
  }
}
