/**
 * Buttons of the fleet digest and the support reminders (docs/fleet.md). They run the same subcommands
 * as typing them, through the slash-command router handed in by the entry point, so who may press them is exactly
 * who may type them: **Plan** (`fleet:plan`, value = cluster) is `plan <cluster>`, answered in the thread of the
 * message that was clicked; **Start upgrade** (`fleet:start`, value JSON {cluster, to}) is `start <cluster> --to
 * <minor>` (requesters only), which opens the upgrade's own thread; the rollout gate's **Continue** / **Abort rollout**
 * (`fleet:rollout`, `fleet:rollout-abort`, value JSON {verb, id}) and the rollout's Pause / Resume / Abort
 * (`fleet:rollout-pause|resume|abort`) are `rollout continue|pause|resume|abort <id>` (approvers).
 * Refusals and confirmations go to the clicker alone.
 */

import type { App, BlockButtonAction } from '@slack/bolt';
import { z } from 'zod';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import type { SlashCommandRouter } from '../../ports/slack/slash-command.js';
import { observeAck } from '../metrics-ack.js';
import type { ActionDeps } from './gate-actions.js';
import { clickPlace, tellUser } from './tell-user.js';

const NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/;
const startValue = z.object({ cluster: z.string().regex(NAME), to: z.string().regex(/^\d+\.\d+$/) });
const rolloutValue = z.object({ verb: z.enum(['continue', 'pause', 'resume', 'abort']), id: z.string().regex(/^r[0-9a-f]{7}$/) });

export function registerFleetActions(app: App, { metrics, logger }: ActionDeps, commands: SlashCommandRouter): void {
  app.action<BlockButtonAction>(/^fleet:(plan|start|rollout|rollout-pause|rollout-resume|rollout-abort)$/, async ({ ack, body, action, client, context }) => {
    await ack();
    observeAck(metrics, context);
    const place = clickPlace(body);
    const verb = action.action_id === 'fleet:plan' ? 'plan' : 'start';
    let text: string | undefined;
    if (verb === 'plan' && NAME.test(action.value ?? '')) text = `plan ${action.value}`;
    if (action.action_id.startsWith('fleet:rollout')) {
      const value = rolloutValue.safeParse((() => { try { return JSON.parse(action.value ?? ''); } catch { return undefined; } })());
      text = value.success ? `rollout ${value.data.verb} ${value.data.id}` : undefined;
    } else if (verb === 'start') {
      try {
        const value = startValue.parse(JSON.parse(action.value ?? ''));
        text = `start ${value.cluster} --to ${value.to}`;
      } catch {
        text = undefined;
      }
    }
    if (!place || !text) {
      logger.warn({ action: action.action_id, value: action.value }, 'fleet button without a readable value ignored');
      metrics.countAction(action.action_id, 'invalid');
      return;
    }
    const replies: SlackMessage[] = [];
    const prepared = commands.prepare({ text, userId: body.user.id, channelId: place.channel, respond: async (reply) => void replies.push(reply) });
    const outcome = await prepared.run();
    metrics.countAction(action.action_id, outcome === 'ok' ? 'accepted' : outcome === 'rejected' ? 'refused' : 'error');
    // The digest's message is the thread's parent (or, for a click inside a thread, that thread).
    const threadTs = place.threadTs ?? (body.message?.ts as string | undefined);
    if (outcome === 'ok' && verb === 'plan' && threadTs) {
      for (const reply of replies) {
        try {
          await client.chat.postMessage({ channel: place.channel, thread_ts: threadTs, text: reply.text, ...(reply.blocks ? { blocks: reply.blocks } : {}) });
        } catch (error) {
          logger.warn({ err: error, channel: place.channel }, 'could not post a plan into the digest thread');
          await tellUser(client, place, 'The plan could not be posted in the thread (Slack refused it); `/eks-upgrade plan` shows it to you.', logger);
          return;
        }
      }
      return;
    }
    for (const reply of replies) await tellUser(client, place, reply.text, logger);
  });
}
