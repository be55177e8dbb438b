/** `/eks-upgrade help [<subcommand>]`: every subcommand with its options and examples, or one of them. */

import type { KnownBlock } from '@slack/types';
import type { CommandHandler } from './routing/command-context.js';
import { COMMAND, SUBCOMMANDS, USAGE, isSubcommand, usageLine, type Subcommand } from './routing/command-usage.js';
import type { SlackMessage } from '../src/ports/slack/slack-message.js';
import { fallbackText, headerBlock, mrkdwnSection } from '../src/report/blocks/block-kit-limits.js';

export const helpCommand: CommandHandler = async (context) => {
  await context.respond(helpFor(context.args[0]));
};

/**
 * The whole help, or one subcommand's when `topic` names one. The help is the same for every user and every call,
 * so each is rendered once and kept (16 messages at most); callers get it frozen, to spread into their reply.
 */
export function helpFor(topic: string | undefined): Readonly<SlackMessage> {
  const name = topic?.toLowerCase();
  const key: Subcommand | '' = name && isSubcommand(name) ? name : '';
  let message = rendered.get(key);
  if (!message) {
    message = deepFreeze(key ? renderSubcommandHelp(key) : renderHelp());
    rendered.set(key, message);
  }
  return message;
}

const rendered = new Map<string, Readonly<SlackMessage>>();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export function renderHelp(): SlackMessage {
  const entries = SUBCOMMANDS.map((name) => describe(name));
  const options = [
    '*Options*',
    '• `--to &lt;minor&gt;`: target Kubernetes minor version, like `1.31` (`plan` defaults to the next minor; `start` needs it)',
    '• `--dry-run`: `start` walks the plan against the real cluster read-only and reports what it would do',
    '• `--all`: `status` of every cluster this channel may use',
    'Clusters come from clusters.yaml; each may be driven only from its `channels`. Gate buttons (Continue / Force / Abort) in an upgrade thread are for its `approvers`.',
  ];
  const blocks: KnownBlock[] = [
    headerBlock(`${COMMAND}: EKS upgrades from Slack`),
    ...entries.map((text): KnownBlock => mrkdwnSection(text)),
    mrkdwnSection(options.join('\n')),
  ];
  // The notification fallback names the subcommands; the blocks hold the whole help (Slack: text ≤ 4,000).
  return { text: fallbackText(`${COMMAND} subcommands: ${SUBCOMMANDS.join(', ')}. \`${COMMAND} help <subcommand>\` tells more.`), blocks };
}

export function renderSubcommandHelp(name: Subcommand): SlackMessage {
  const text = describe(name);
  return { text: fallbackText(text), blocks: [mrkdwnSection(text)] };
}

function describe(name: Subcommand): string {
  const usage = USAGE[name];
  const examples = usage.examples.map((example) => `\`${COMMAND} ${example}\``).join('   ');
  return `*\`${usageLine(name)}\`*\n${usage.summary}\nExamples: ${examples}`;
}
