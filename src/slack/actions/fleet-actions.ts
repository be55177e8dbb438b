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

import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import type { SlashCommandRouter } from '../../ports/slack/slash-command.js';
import { parseJsonAs } from '../../report/blocks/reason-modal.js';
import { defineAction, routedOutcome, type ActionDeps } from './define-action.js';

const NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/;
const startValue = z.object({ cluster: z.string().regex(NAME), to: z.string().regex(/^\d+\.\d+$/) });
const rolloutValue = z.object({ verb: z.enum(['continue', 'pause', 'resume', 'abort']), id: z.string().regex(/^r[0-9a-f]{7}$/) });

/** The subcommand a fleet button stands for, or undefined when its value does not read. */
function commandOf(actionId: string, value: string | undefined): string | undefined {
  if (actionId === 'fleet:plan') return NAME.test(value ?? '') ? `plan ${value}` : undefined;
  if (actionId.startsWith('fleet:rollout')) {
    const rollout = parseJsonAs(rolloutValue, value);
    return rollout && `rollout ${rollout.verb} ${rollout.id}`;
  }
  const start = parseJsonAs(startValue, value);
  return start && `start ${start.cluster} --to ${start.to}`;
}

export function registerFleetActions(app: App, kit: ActionDeps, commands: SlashCommandRouter): void {
  const { logger } = kit;
  defineAction(app, kit, {
    id: /^fleet:(plan|start|rollout|rollout-pause|rollout-resume|rollout-abort)$/,
    read: (value, actionId) => commandOf(actionId, value),
    logFields: (id) => ({ action: id }),
    unreadable: { log: 'fleet button without a readable value ignored' },
    act: async (text, _grant, click) => {
      const replies: SlackMessage[] = [];
      const prepared = commands.prepare({ text, userId: click.user, channelId: click.place.channel, respond: async (reply) => void replies.push(reply) });
      const outcome = await prepared.run();
      const counted = { outcome: routedOutcome(outcome) };
      // The digest's message is the thread's parent (or, for a click inside a thread, that thread).
      const threadTs = click.place.threadTs ?? (click.body.message?.ts as string | undefined);
      if (outcome === 'ok' && click.id === 'fleet:plan' && threadTs) {
        for (const reply of replies) {
          try {
            await click.client.chat.postMessage({ channel: click.place.channel, thread_ts: threadTs, text: reply.text, ...(reply.blocks ? { blocks: reply.blocks } : {}) });
          } catch (error) {
            logger.warn({ err: error, channel: click.place.channel }, 'could not post a plan into the digest thread');
            return { ...counted, tell: 'The plan could not be posted in the thread (Slack refused it); `/eks-upgrade plan` shows it to you.' };
          }
        }
        return counted;
      }
      for (const reply of replies) await click.tell(reply.text);
      return counted;
    },
  });
}
