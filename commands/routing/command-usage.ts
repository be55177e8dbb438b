/**
 * The grammar of `/eks-upgrade`, as users read it. `help` prints all of it; every rejected command prints the
 * entry of the subcommand it was meant to be, so the right usage is always one glance away.
 */

import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import { contextLine, fallbackText, mrkdwnSection } from '../../src/report/blocks/block-kit-limits.js';

export const SUBCOMMANDS = ['help', 'status', 'plan', 'start', 'rollback', 'jobs', 'pause', 'resume', 'abort', 'audit', 'waivers', 'digest', 'rollout', 'rehearse', 'doctor'] as const;
export type Subcommand = (typeof SUBCOMMANDS)[number];

export const COMMAND = '/eks-upgrade';

export interface SubcommandUsage {
  synopsis: string;
  summary: string;
  examples: string[];
}

export const USAGE: Record<Subcommand, SubcommandUsage> = {
  help: {
    synopsis: 'help [<subcommand>]',
    summary: 'This help, or the help of one subcommand.',
    examples: ['help', 'help start'],
  },
  status: {
    synopsis: 'status [<cluster> | --all]',
    summary:
      'Control-plane and platform version, cluster status and the kubelet versions of its nodes by node group. ' +
      '`--all` (or no cluster) covers every cluster this channel may use.',
    examples: ['status demo', 'status --all'],
  },
  plan: {
    synopsis: 'plan <cluster> [--to <minor> | --rollback]',
    summary: 'Preflight findings and the ordered steps of an upgrade; the target defaults to the next minor. `--rollback` shows the plan of rolling back one minor instead.',
    examples: ['plan demo', 'plan demo --to 1.31', 'plan demo --rollback'],
  },
  start: {
    synopsis: 'start <cluster> --to <minor> [--dry-run]',
    summary:
      'Starts an upgrade job and opens its thread. `--dry-run` walks the plan read-only and reports what it would do. ' +
      'Only `requesters` of the cluster may start.',
    examples: ['start demo --to 1.31', 'start demo --to 1.31 --dry-run'],
  },
  rollback: {
    synopsis: 'rollback <cluster> [--dry-run]',
    summary:
      'Rolls the cluster back one minor within 7 days of an in-place upgrade: node groups and the add-ons the older minor does not support first, ' +
      'then (after a gate) the control plane, then Fargate. Only `requesters` may start it; approvers answer its gates.',
    examples: ['rollback demo', 'rollback demo --dry-run'],
  },
  jobs: {
    synopsis: 'jobs [<cluster>]',
    summary: 'Running and recent upgrade jobs with their state and thread links.',
    examples: ['jobs', 'jobs demo'],
  },
  pause: {
    synopsis: 'pause <job-id | cluster>',
    summary: 'Stops the upgrade at its next safe point (Karpenter budgets drop to 0 at once). Approvers only.',
    examples: ['pause demo'],
  },
  resume: {
    synopsis: 'resume <job-id | cluster>',
    summary: 'Resumes a paused upgrade. Approvers only.',
    examples: ['resume demo'],
  },
  abort: {
    synopsis: 'abort <job-id | cluster>',
    summary: 'Stops after the current AWS operation, restores budgets it changed and reports the state. Approvers only.',
    examples: ['abort demo'],
  },
  audit: {
    synopsis: 'audit <cluster>',
    summary: 'The audit trail of a cluster: starts, gate answers, Force reasons, pauses, resumes, aborts and refusals, newest first.',
    examples: ['audit demo'],
  },
  rehearse: {
    synopsis: 'rehearse <cluster> --to <minor> [--answers continue|remedy|stop]',
    summary:
      'Reads the cluster (reads only), runs the real upgrade against a simulated twin of it with gates answered automatically, ' +
      'and posts a REHEARSAL thread ending with what would block, step durations, pods restarted and the gates you would face.',
    examples: ['rehearse demo --to 1.31', 'rehearse demo --to 1.31 --answers remedy'],
  },
  waivers: {
    synopsis: 'waivers [<cluster>]',
    summary:
      'Waivers of findings: clusters.yaml\'s and those asked for in Slack (Waive… on a plan finding), with who asked, who approved, why and until when. ' +
      'Approvers can approve or revoke from the list.',
    examples: ['waivers', 'waivers demo'],
  },
  digest: {
    synopsis: 'digest',
    summary:
      "Posts this channel's fleet digest now: each cluster's version, end of standard support and days left, extended-support cost, " +
      'blocking findings, oldest kubelet and running job, most urgent first, with a Plan button per cluster.',
    examples: ['digest'],
  },
  rollout: {
    synopsis: "rollout --to <minor> --waves <globs> [<globs>…] [--soak 24h] [--max-parallel 3] | rollout continue|pause|resume|abort <rollout-id>",
    summary:
      'Upgrades the configured clusters matching each wave in turn, each in its own thread; the next wave starts after the soak time, ' +
      'a health check and an approver\'s Continue. Requesters of every cluster start; approvers continue, pause, resume and abort.',
    examples: ["rollout --to 1.31 --waves 'dev-*' 'staging-*' 'prod-*' --soak 24h --max-parallel 3", 'rollout pause r1a2b3c4'],
  },
  doctor: {
    synopsis: 'doctor',
    summary:
      'Checks, without changing anything, every permission and setting the bot needs: its AWS identity and IAM actions, each cluster\'s API, ' +
      'access entry, ClusterRole and Karpenter, the Slack token\'s scopes and channels, and Redis. One line per check, with what to fix. Approvers only.',
    examples: ['doctor'],
  },
};

export function isSubcommand(word: string): word is Subcommand {
  return (SUBCOMMANDS as readonly string[]).includes(word);
}

/**
 * Slack reads `<…>` in message text as a link or mention and `&` as an entity, so text that shows placeholders like
 * <cluster> (or echoes what a user typed) must carry them as entities.
 */
export function escapeAngles(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** "/eks-upgrade start &lt;cluster&gt; --to &lt;minor&gt; [--dry-run]": ready for mrkdwn. */
export function usageLine(subcommand: Subcommand): string {
  return escapeAngles(`${COMMAND} ${USAGE[subcommand].synopsis}`);
}

/** The ephemeral answer to a command we refuse: what was wrong, then how to say it right. */
export function usageProblem(problem: string, subcommand?: Subcommand): SlackMessage {
  const usage = subcommand
    ? [`Usage: \`${usageLine(subcommand)}\``, `Example: \`${COMMAND} ${USAGE[subcommand].examples[0]}\``]
    : [`Subcommands: ${SUBCOMMANDS.map((name) => `\`${name}\``).join(', ')}`];
  const lines = [...usage, `\`${COMMAND} help\` lists every subcommand and option.`];
  return {
    text: fallbackText(`${problem}\n${lines.join('\n')}`),
    blocks: [mrkdwnSection(`:warning: ${problem}`), contextLine(lines.join('\n'))],
  };
}

/** A refusal that is not about syntax (not allowed, not found): no usage block needed. */
export function problemMessage(problem: string): SlackMessage {
  return { text: fallbackText(problem), blocks: [mrkdwnSection(`:no_entry: ${problem}`)] };
}
