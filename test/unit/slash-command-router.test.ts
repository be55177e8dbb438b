import { describe, expect, it } from 'vitest';
import { COMMAND_HANDLERS } from '../../commands/routing/command-handlers.js';
import { createSlashCommandRouter } from '../../commands/routing/slash-command-router.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import type { BotDeps } from '../../src/ports/bot-deps.js';
import type { SlashCommandReply } from '../../src/ports/slack/slash-command.js';

/**
 * What the Slack adapter gets from the router before and after its ack: help and a malformed command's usage go with
 * the ack, and running such a command afterwards answers nothing a second time and runs no handler again.
 */
const config = parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'] }] });
const deps = { config, logger: createLogger({ level: 'silent' }) } as unknown as BotDeps;

function setup() {
  const ran: string[] = [];
  const answers: SlashCommandReply[] = [];
  const router = createSlashCommandRouter(deps, {
    ...COMMAND_HANDLERS,
    help: async (context) => {
      ran.push(`help ${context.args.join(' ')}`.trim());
      await context.respond({ text: 'help from the handler' });
    },
  });
  const prepare = (text: string) => router.prepare({ text, userId: 'U0REQ', channelId: 'C0DEMO', respond: async (reply) => void answers.push(reply) });
  return { ran, answers, prepare };
}

describe('the slash command router', () => {
  it('answers help in the ack, and after it runs no help handler and sends nothing more', async () => {
    const { ran, answers, prepare } = setup();
    const prepared = prepare('help plan');
    expect(prepared.reply?.response_type).toBe('ephemeral');
    expect(JSON.stringify(prepared.reply?.blocks)).toContain('plan');
    await expect(prepared.run({ repliedInAck: true })).resolves.toBe('ok');
    expect(ran).toEqual([]);
    expect(answers).toEqual([]);
  });

  it('runs the help handler when the ack could not carry the answer', async () => {
    const { ran, answers, prepare } = setup();
    await expect(prepare('help plan').run()).resolves.toBe('ok');
    expect(ran).toEqual(['help plan']);
    expect(answers.map((answer) => answer.text)).toEqual(['help from the handler']);
  });

  it('counts a malformed command as rejected once its usage went with the ack, and answers it only when it did not', async () => {
    const { answers, prepare } = setup();
    const prepared = prepare('stauts demo');
    expect(prepared.reply?.text).toMatch(/Did you mean `status`\?/);
    await expect(prepared.run({ repliedInAck: true })).resolves.toBe('rejected');
    expect(answers).toEqual([]);
    await expect(prepare('stauts demo').run()).resolves.toBe('rejected');
    expect(answers.map((answer) => answer.text)).toEqual([prepared.reply?.text]);
  });

  it('gives every caller the same help, which no caller can change for the next', () => {
    const { prepare } = setup();
    const first = prepare('help').reply!;
    expect(() => (first.blocks as unknown[]).push({ type: 'divider' })).toThrow(TypeError);
    expect(prepare('help').reply).toEqual(first);
  });
});
