import { describe, expect, it } from 'vitest';
import {
  mrkdwnToText,
  renderBlocksAsText,
  renderMessageAsText,
} from '../../../src/sim/slack/render-blocks-as-text.js';

describe('rendering Block Kit as text', () => {
  it('renders a status card: header in caps, fields, context, divider', () => {
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'Upgrade demo 1.30 → 1.31' } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: 'Requested by <@U0REQ> in <#C0DEMO|ops>' },
        fields: [
          { type: 'mrkdwn', text: '*Control plane*\n1.30' },
          { type: 'mrkdwn', text: '*Step*\ngate' },
        ],
      },
      { type: 'divider' },
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: 'job `demo-1`' },
          { type: 'image', image_url: 'https://x/y.png', alt_text: 'eks' },
          { type: 'plain_text', text: 'started 12:00' },
        ],
      },
    ];
    expect(renderBlocksAsText(blocks)).toMatchInlineSnapshot(`
      "*UPGRADE DEMO 1.30 → 1.31*
      Requested by @U0REQ in #ops
      *Control plane*
      1.30
      *Step*
      gate
      ────────────────────────────────
      › job \`demo-1\` · [eks] · started 12:00"
    `);
  });

  it('renders a gate card with styled buttons and a confirm dialog', () => {
    const blocks = [
      { type: 'section', text: { type: 'mrkdwn', text: '*Gate:* upgrade the control plane?' } },
      {
        type: 'actions',
        block_id: 'gate:job1:g1:1',
        elements: [
          { type: 'button', action_id: 'gate:continue', style: 'primary', text: { type: 'plain_text', text: 'Continue' } },
          { type: 'button', action_id: 'gate:abort', style: 'danger', text: { type: 'plain_text', text: 'Abort' } },
          {
            type: 'button',
            action_id: 'gate:force',
            style: 'danger',
            text: { type: 'plain_text', text: 'Force' },
            confirm: { title: { type: 'plain_text', text: 'Sure?' }, text: { type: 'plain_text', text: 'Really' } },
          },
          { type: 'button', action_id: 'docs', url: 'https://example.com', text: { type: 'plain_text', text: 'Docs' } },
        ],
      },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: 'Pick a node group' },
        accessory: { type: 'static_select', placeholder: { type: 'plain_text', text: 'Node group' }, options: [] },
      },
    ];
    expect(renderBlocksAsText(blocks)).toMatchInlineSnapshot(`
      "*Gate:* upgrade the control plane?
      [ Continue ](primary)  [ Abort ](danger)  [ Force ](danger, confirm)  [ Docs ↗ ]
      Pick a node group
      [ Node group ▾ ]"
    `);
  });

  it('renders modal inputs, rich text and unknown blocks without throwing', () => {
    const blocks = [
      {
        type: 'input',
        label: { type: 'plain_text', text: 'Reason' },
        element: { type: 'plain_text_input', action_id: 'reason', multiline: true, placeholder: { type: 'plain_text', text: 'Why force?' } },
        hint: { type: 'plain_text', text: 'Recorded in the timeline' },
      },
      {
        type: 'input',
        optional: true,
        label: { type: 'plain_text', text: 'Notify' },
        element: {
          type: 'checkboxes',
          action_id: 'notify',
          options: [
            { text: { type: 'plain_text', text: 'on-call' }, value: 'oncall' },
            { text: { type: 'plain_text', text: 'owner' }, value: 'owner' },
          ],
          initial_options: [{ text: { type: 'plain_text', text: 'owner' }, value: 'owner' }],
        },
      },
      {
        type: 'rich_text',
        elements: [
          { type: 'rich_text_section', elements: [{ type: 'text', text: 'Blocked by ' }, { type: 'user', user_id: 'U1' }] },
          { type: 'rich_text_list', style: 'bullet', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'orders-pdb' }] }] },
          { type: 'rich_text_preformatted', elements: [{ type: 'text', text: 'kubectl get pdb' }] },
        ],
      },
      { type: 'shiny_new_block' },
      'not even an object',
    ];
    expect(renderBlocksAsText(blocks)).toMatchInlineSnapshot(`
      "Reason: [ Why force? ¶ ]
      › Recorded in the timeline
      Notify (optional): ☐ on-call  ☑ owner
      Blocked by @U1
      • orders-pdb
      \`\`\`
      kubectl get pdb
      \`\`\`
      [shiny_new_block block]
      [unknown block]"
    `);
  });

  it('shows the text when a message has no blocks, and attachments with a bar', () => {
    expect(renderMessageAsText({ text: 'Hello <@U0REQ> &amp; <https://aws.amazon.com|AWS>' })).toMatchInlineSnapshot(`"Hello @U0REQ & AWS (https://aws.amazon.com)"`);
    expect(
      renderMessageAsText({
        text: 'fallback only',
        attachments: [{ color: '#f00', title: 'Failed', text: 'UpdateClusterVersion: InvalidParameterException', fields: [{ title: 'Cluster', value: 'demo' }] }],
      }),
    ).toMatchInlineSnapshot(`
      "fallback only
      ▌ Failed
      ▌ UpdateClusterVersion: InvalidParameterException
      ▌ Cluster: demo"
    `);
  });

  it('prefers blocks over the fallback text, as Slack clients do', () => {
    const rendered = renderMessageAsText({
      text: 'notification fallback',
      blocks: [{ type: 'section', text: { type: 'plain_text', text: 'What you see' } }],
    });
    expect(rendered).toBe('What you see');
  });

  it('turns mrkdwn links, mentions and escapes into readable text', () => {
    expect(mrkdwnToText('<!here> <!subteam^S0ONCALL|@oncall> <#C1> <http://x>')).toBe('@here @oncall #C1 http://x');
    expect(mrkdwnToText('a &lt;b&gt;')).toBe('a <b>');
  });
});
