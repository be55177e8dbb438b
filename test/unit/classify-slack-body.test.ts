import { describe, expect, it } from 'vitest';
import { classifySlackBody } from '../../src/slack/classify-slack-body.js';

/** What reaches Bolt: a slash command is dispatched only when it is ours and names a user and a channel. */
const form = (fields: Record<string, string | string[]>) =>
  Object.entries(fields)
    .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${encodeURIComponent(key)}=${encodeURIComponent(v)}`))
    .join('&');
const classify = (fields: Record<string, string | string[]>) => classifySlackBody('application/x-www-form-urlencoded', form(fields), '/eks-upgrade').kind;
const command = { command: '/eks-upgrade', user_id: 'U0REQ', channel_id: 'C0DEMO', text: 'status demo' };

describe('classifySlackBody for slash commands', () => {
  it('dispatches our command, with or without text', () => {
    expect(classify(command)).toBe('dispatch');
    const { text: _text, ...withoutText } = command;
    expect(classify(withoutText)).toBe('dispatch');
    expect(classify({ ...command, text: '' })).toBe('dispatch');
  });

  it('refuses another command, an empty or missing user or channel, and a field given twice', () => {
    expect(classify({ ...command, command: '/other' })).toBe('reject');
    expect(classify({ ...command, user_id: '' })).toBe('reject');
    const { channel_id: _channel, ...withoutChannel } = command;
    expect(classify(withoutChannel)).toBe('reject');
    expect(classify({ ...command, user_id: ['U0REQ', 'U0APP'] })).toBe('reject');
    expect(classify({ ...command, text: ['status demo', 'start demo'] })).toBe('reject');
  });
});
