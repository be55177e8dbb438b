import { describe, expect, it } from 'vitest';
import { checkMessageBlocks, checkModalView, withGeneratedIds } from '../../../src/sim/slack/web-api/block-kit-rules.js';
import { buildSlashCommandBody, findButton, listButtons } from '../../../src/sim/slack/interaction-payloads.js';
import { buildViewState } from '../../../src/sim/slack/view-submission-payload.js';

const button = (actionId: string, text: string, value?: string) => ({
  type: 'button', action_id: actionId, text: { type: 'plain_text', text }, ...(value ? { value } : {}),
});

describe('fake Slack payloads', () => {
  it('builds a slash command body with Slack\'s fields in Slack\'s order', () => {
    const body = buildSlashCommandBody({
      teamId: 'T1', teamDomain: 'acme', channelId: 'C0DEMO', channelName: 'ops', userId: 'U0REQ', userName: 'req',
      command: '/eks-upgrade', text: 'start demo --to 1.31', apiAppId: 'A1', responseUrl: 'http://x/response/1', triggerId: '1.2.3',
    });
    expect([...new URLSearchParams(body).keys()]).toEqual([
      'token', 'team_id', 'team_domain', 'channel_id', 'channel_name', 'user_id', 'user_name', 'command', 'text',
      'api_app_id', 'is_enterprise_install', 'response_url', 'trigger_id',
    ]);
    expect(new URLSearchParams(body).get('text')).toBe('start demo --to 1.31');
    expect(body).toContain('command=%2Feks-upgrade');
  });

  it('finds a button by action_id, by its visible text, and by value among same-id buttons', () => {
    const blocks = [
      { type: 'section', block_id: 's1', text: { type: 'mrkdwn', text: 'x' }, accessory: button('remedy', 'Scale to 2') },
      { type: 'actions', block_id: 'gate:j:g:2', elements: [button('gate:continue', 'Continue', 'v1'), button('gate:continue', 'Continue', 'v2')] },
    ];
    expect(findButton(blocks, { actionId: 'remedy' })?.blockId).toBe('s1');
    expect(findButton(blocks, { text: ' continue ' })?.element.value).toBe('v1');
    expect(findButton(blocks, { actionId: 'gate:continue', value: 'v2' })?.element.value).toBe('v2');
    expect(findButton(blocks, { text: 'Abort' })).toBeUndefined();
    expect(listButtons(blocks).map((b) => b.label)).toEqual(['Scale to 2', 'Continue', 'Continue']);
  });

  it('flags blocks real Slack would refuse with invalid_blocks', () => {
    expect(checkMessageBlocks([{ type: 'section', text: { type: 'mrkdwn', text: 'ok' } }])).toEqual([]);
    const problems = checkMessageBlocks([
      { type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } },
      { type: 'actions', elements: [button('a', 'One'), button('a', 'Two')] },
      { type: 'actions', elements: [{ ...button('b', 'y'.repeat(76)), style: 'green' }] },
      { type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) },
      { type: 'sectoin' },
    ]);
    expect(problems).toEqual([
      '[ERROR] must be less than 151 characters [json-pointer:/blocks/0/text/text]',
      '[ERROR] duplicate action_id [json-pointer:/blocks/1/elements/1/action_id]',
      '[ERROR] must be less than 76 characters [json-pointer:/blocks/2/elements/0/text/text]',
      '[ERROR] must be one of primary, danger [json-pointer:/blocks/2/elements/0/style]',
      '[ERROR] must be less than 11 items [json-pointer:/blocks/3/fields]',
      '[ERROR] unsupported block type [json-pointer:/blocks/4/type]',
    ]);
    expect(checkMessageBlocks(Array.from({ length: 51 }, () => ({ type: 'divider' })))).toEqual([
      '[ERROR] must be less than 51 items [json-pointer:/blocks]',
    ]);
  });

  it('flags modal titles over 24 characters', () => {
    const view = { type: 'modal', title: { type: 'plain_text', text: 'Force the node group upgrade' }, blocks: [] };
    expect(checkModalView(view)).toEqual(['[ERROR] must be less than 25 characters [json-pointer:/view/title/text]']);
  });

  it('fills in block_id and action_id where the bot left them out, keeping the ones it set', () => {
    let id = 0;
    const blocks = withGeneratedIds(
      [{ type: 'actions', block_id: 'mine', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Go' } }] }, { type: 'section', text: { type: 'mrkdwn', text: 'x' } }],
      () => ++id,
    );
    expect(blocks).toEqual([
      { type: 'actions', block_id: 'mine', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Go' }, action_id: 'a1' }] },
      { type: 'section', block_id: 'b2', text: { type: 'mrkdwn', text: 'x' } },
    ]);
  });

  it('builds view state values per input type and refuses inputs a user could not submit', () => {
    const view = {
      type: 'modal',
      title: { type: 'plain_text', text: 'Force' },
      blocks: [
        { type: 'input', block_id: 'reason', label: { type: 'plain_text', text: 'Reason' }, element: { type: 'plain_text_input', action_id: 'text' } },
        {
          type: 'input', block_id: 'mode', optional: true, label: { type: 'plain_text', text: 'Mode' },
          element: { type: 'static_select', action_id: 'pick', options: [{ text: { type: 'plain_text', text: 'Drain' }, value: 'drain' }] },
        },
      ],
    };
    const state = buildViewState(view, { reason: 'PDB blocks the drain', pick: 'Drain' });
    expect(state.values).toEqual({
      reason: { text: { type: 'plain_text_input', value: 'PDB blocks the drain' } },
      mode: { pick: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: 'Drain' }, value: 'drain' } } },
    });
    expect(state.display).toEqual({ Reason: 'PDB blocks the drain', Mode: 'Drain' });
    expect(() => buildViewState(view, {})).toThrow(/required input "Reason" has no value/);
    expect(() => buildViewState(view, { reason: 'x', nope: 'y' })).toThrow(/no input matches "nope"/);
  });
});
