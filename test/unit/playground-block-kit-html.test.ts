import { describe, expect, it } from 'vitest';
import { forceReasonView } from '../../src/slack/actions/force-reason-modal.js';
import { renderBlocks, renderConfirm, renderMessageBody, renderModal } from '../../src/playground/web/block-kit-html.js';
import { escapeHtml, mrkdwnToHtml } from '../../src/playground/web/mrkdwn-html.js';

const names = { users: { U0BOB: 'bob' }, channels: { C0OPS: 'platform-ops' } };

describe('mrkdwn → HTML', () => {
  it('formats bold, italic, strike, code and preformatted text as Slack does', () => {
    expect(mrkdwnToHtml('*Gate* is _open_ for ~nobody~ `h1-gate`')).toBe(
      '<strong>Gate</strong> is <em>open</em> for <del>nobody</del> <code>h1-gate</code>',
    );
    expect(mrkdwnToHtml('```\nStep  Duration\n*not bold*\n```')).toBe('<pre>Step  Duration\n*not bold*\n</pre>');
  });

  it('leaves markers inside words alone (snake_case, a*b*c)', () => {
    expect(mrkdwnToHtml('resolve_conflicts_preserve and 2*3*4')).toBe('resolve_conflicts_preserve and 2*3*4');
  });

  it('shows mentions by name, channels, special mentions and safe links', () => {
    expect(mrkdwnToHtml('Approved by <@U0BOB> in <#C0OPS> <!here>', names)).toBe(
      'Approved by <span class="mention">@bob</span> in <span class="mention">#platform-ops</span> <span class="mention">@here</span>',
    );
    expect(mrkdwnToHtml('<https://slack.com/archives/C0/p1|thread>')).toBe(
      '<a href="https://slack.com/archives/C0/p1" target="_blank" rel="noopener noreferrer">thread</a>',
    );
  });

  it('lets formatting span a mention (*approved by <@U…>*)', () => {
    expect(mrkdwnToHtml('*approved by <@U0BOB>*', names)).toBe('<strong>approved by <span class="mention">@bob</span></strong>');
  });

  it('escapes every piece of user text, and never links a javascript: URL', () => {
    const html = mrkdwnToHtml('<script>alert(1)</script> <javascript:alert(1)|click> "quoted" &lt;b&gt; <@U1|<img src=x onerror=alert(1)>>');
    expect(html).not.toMatch(/<script|<img|<a /);
    expect(html).toContain('&lt;b&gt;');
    expect(html).toContain('click');
    expect(escapeHtml('"\'<>&')).toBe('&quot;&#39;&lt;&gt;&amp;');
  });

  it('decodes the &lt; &gt; &amp; escapes Slack text carries, once', () => {
    expect(mrkdwnToHtml('/eks-upgrade start &lt;cluster&gt; --to &lt;minor&gt; &amp; more')).toBe(
      '/eks-upgrade start &lt;cluster&gt; --to &lt;minor&gt; &amp; more',
    );
  });

  it('turns the shortcodes the bot uses into emoji and keeps unknown ones as typed', () => {
    expect(mrkdwnToHtml(':rocket: Started :not_an_emoji:')).toBe('🚀 Started :not_an_emoji:');
  });
});

describe('Block Kit → HTML', () => {
  it('renders a header, a section with fields, a divider and a context line', () => {
    const html = renderBlocks([
      { type: 'header', text: { type: 'plain_text', text: 'EKS upgrade · demo 1.30 → 1.31' } },
      { type: 'section', fields: [{ type: 'mrkdwn', text: '*State*\n✅ Succeeded' }, { type: 'mrkdwn', text: '*Started by*\n<@U0BOB>' }] },
      { type: 'divider' },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'step `h1-verify`' }] },
    ], names);
    expect(html).toBe(
      '<div class="bk-header" role="heading" aria-level="3">EKS upgrade · demo 1.30 → 1.31</div>'
      + '<div class="bk-section"><div class="bk-section-body"><div class="bk-fields">'
      + '<div class="bk-field"><strong>State</strong><br>✅ Succeeded</div>'
      + '<div class="bk-field"><strong>Started by</strong><br><span class="mention">@bob</span></div></div></div></div>'
      + '<hr class="bk-divider">'
      + '<div class="bk-context"><span class="bk-text">step <code>h1-verify</code></span></div>',
    );
  });

  it('renders buttons with their style, action, value and confirm dialog in data attributes, escaped', () => {
    const confirm = { title: { type: 'plain_text', text: 'Force?' }, text: { type: 'plain_text', text: 'Sure "really"?' }, confirm: { type: 'plain_text', text: 'Force' }, deny: { type: 'plain_text', text: 'Back' }, style: 'danger' };
    const html = renderBlocks([{
      type: 'actions',
      block_id: 'gate',
      elements: [
        { type: 'button', action_id: 'gate:continue', value: '{"gateId":"g1"}', style: 'primary', text: { type: 'plain_text', text: 'Continue' } },
        { type: 'button', action_id: 'gate:force', value: 'v', style: 'danger', confirm, text: { type: 'plain_text', text: 'Force' } },
      ],
    }]);
    expect(html).toContain('<button type="button" class="bk-button bk-button-primary" data-action-id="gate:continue" data-block-id="gate" data-value="{&quot;gateId&quot;:&quot;g1&quot;}">Continue</button>');
    expect(html).toContain('class="bk-button bk-button-danger" data-action-id="gate:force"');
    const attribute = /data-confirm="([^"]*)"/.exec(html)?.[1] ?? '';
    expect(JSON.parse(attribute.replace(/&quot;/g, '"').replace(/&amp;/g, '&'))).toEqual(confirm);
    expect(renderConfirm(confirm)).toContain('<button type="button" class="bk-button bk-button-danger" data-confirm-answer="confirm">Force</button>');
    expect(renderConfirm(confirm)).toContain('Sure &quot;really&quot;?');
  });

  it('shows a section accessory button beside the text', () => {
    const html = renderBlocks([{ type: 'section', block_id: 'b1', text: { type: 'mrkdwn', text: 'Timeline' }, accessory: { type: 'button', action_id: 'export', text: { type: 'plain_text', text: 'Export timeline' } } }]);
    expect(html).toContain('<div class="bk-accessory"><button type="button" class="bk-button" data-action-id="export" data-block-id="b1">Export timeline</button></div>');
  });

  it('falls back to the message text when there are no blocks, and names block types it does not show', () => {
    expect(renderMessageBody({ text: ':rocket: Started *demo*' })).toBe('<div class="bk-section-text">🚀 Started <strong>demo</strong></div>');
    expect(renderBlocks([{ type: 'video' }])).toContain('(block <code>video</code> is not shown in the playground)');
  });

  it('renders the bot’s Force modal: a required multiline reason with its length limits, Cancel and Force', () => {
    const view = forceReasonView({ jobId: 'j1', gateId: 'g1', revision: 0, channel: 'C0OPS' }, { cluster: 'demo', gateTitle: 'Drain demo-ng' });
    const html = renderModal(view as unknown as Record<string, unknown>);
    expect(html).toContain('<h2 id="modal-title">Force this step</h2>');
    expect(html).toMatch(/<textarea id="input-reason" name="reason" rows="4" required placeholder="[^"]+" minlength="10" maxlength="1000"><\/textarea>/);
    expect(html).toContain('<label class="bk-label" for="input-reason">Why is it safe to force?</label>');
    expect(html).toContain('<button type="submit" class="bk-button bk-button-primary">Force</button>');
    expect(html).toContain('data-modal-close>Cancel</button>');
  });

  it('shows the errors the bot returned under their inputs, and optional inputs and choices', () => {
    const view = {
      type: 'modal',
      title: { type: 'plain_text', text: 'Waive findings' },
      blocks: [
        { type: 'input', block_id: 'reason', label: { type: 'plain_text', text: 'Reason' }, element: { type: 'plain_text_input', action_id: 'r' } },
        { type: 'input', block_id: 'codes', optional: true, label: { type: 'plain_text', text: 'Findings' }, element: { type: 'checkboxes', action_id: 'c', options: [{ text: { type: 'plain_text', text: 'EKS006 <b>' }, value: 'EKS006' }] } },
        { type: 'input', block_id: 'until', label: { type: 'plain_text', text: 'Until' }, element: { type: 'datepicker', action_id: 'd' } },
      ],
    };
    const html = renderModal(view, { reason: 'Give a reason of at least 10 characters.' });
    expect(html).toContain('<div class="bk-input bk-input-error"><label class="bk-label" for="input-reason">Reason</label>');
    expect(html).toContain('<div class="bk-error" role="alert">Give a reason of at least 10 characters.</div>');
    expect(html).toContain('Findings <span class="bk-optional">(optional)</span>');
    expect(html).toContain('<input type="checkbox" name="codes" value="EKS006"> EKS006 &lt;b&gt;');
    expect(html).toContain('<input id="input-until" name="until" type="date" value="" required>');
  });
});
