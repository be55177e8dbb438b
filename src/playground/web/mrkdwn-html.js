// Slack's mrkdwn → HTML, for the playground page (plain ES module: the browser loads it as is, tests import it).
// Every character of the input is HTML-escaped; the only tags in the output are the ones this module writes.
// Formatting rules: docs.slack.dev "Formatting text for app surfaces" (*bold*, _italic_, ~strike~, `code`,
// ```preformatted```, <@U…> mentions, <#C…|name> channels, <!here>, <url|label> links, &lt; &gt; &amp; escapes).

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text) {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Escapes element content only (quotes stay as typed, so formatting can see them). */
function escapeText(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack escapes &, < and > in message text; undo that before escaping for HTML, or "&amp;" would show. */
function decodeSlackEntities(text) {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

// The shortcodes the bot and Slack's own messages use; others stay as typed, as Slack shows unknown ones.
const EMOJI = {
  rocket: '🚀', white_check_mark: '✅', heavy_check_mark: '✔️', x: '❌', warning: '⚠️', no_entry: '⛔',
  no_entry_sign: '🚫', lock: '🔒', key: '🔑', hourglass: '⌛', hourglass_flowing_sand: '⏳', wrench: '🔧',
  raised_hand: '✋', large_green_circle: '🟢', large_orange_circle: '🟠', large_blue_circle: '🔵',
  red_circle: '🔴', large_yellow_circle: '🟡', white_circle: '⚪', information_source: 'ℹ️', scissors: '✂️',
  checkered_flag: '🏁', ballot_box_with_ballot: '🗳️', arrow_right: '➡️', point_up: '☝️', mag: '🔍',
  memo: '📝', paperclip: '📎', stopwatch: '⏱️', clock3: '🕒', tada: '🎉', construction: '🚧', sos: '🆘',
  double_vertical_bar: '⏸️', arrow_forward: '▶️', leftwards_arrow_with_hook: '↩️', thumbsup: '👍', eyes: '👀',
  rewind: '⏪', performing_arts: '🎭', alarm_clock: '⏰', arrows_counterclockwise: '🔄', grey_question: '❔',
  ocean: '🌊', octagonal_sign: '🛑',
};

export function emojify(escaped) {
  return escaped.replace(/:([a-z0-9_+-]+):/g, (whole, name) => EMOJI[name] ?? whole);
}

function isSafeUrl(url) {
  return /^(https?:\/\/|mailto:)/i.test(url);
}

/** One <…> token: a mention, a channel, a special mention or a link. */
function angleToken(inner, names) {
  const [target, label] = splitOnce(inner, '|');
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return `<span class="mention">@${escapeHtml(label ?? names.users?.[id] ?? id)}</span>`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    return `<span class="mention">#${escapeHtml(label ?? names.channels?.[id] ?? id)}</span>`;
  }
  if (target.startsWith('!')) {
    const special = target.slice(1).split('^')[0];
    const shown = label ?? (special === 'subteam' ? `@${target.split('^')[1] ?? 'group'}` : `@${special}`);
    return `<span class="mention">${escapeHtml(shown)}</span>`;
  }
  const url = decodeSlackEntities(target);
  const text = escapeHtml(decodeSlackEntities(label ?? target));
  if (!isSafeUrl(url)) return text;
  return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${text}</a>`;
}

function splitOnce(text, separator) {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

// Slack applies *, _ and ~ only at word boundaries: "a*b*c" stays as typed.
const BEFORE = String.raw`(^|[\s(\[{>"'“‘–—-])`;
const AFTER = String.raw`(?=$|[\s.,;:!?)\]}<"'”’–—-])`;
const styles = [
  [new RegExp(`${BEFORE}\\*(\\S(?:[^*\\n]*?\\S)?)\\*${AFTER}`, 'g'), 'strong'],
  [new RegExp(`${BEFORE}_(\\S(?:[^_\\n]*?\\S)?)_${AFTER}`, 'g'), 'em'],
  [new RegExp(`${BEFORE}~(\\S(?:[^~\\n]*?\\S)?)~${AFTER}`, 'g'), 'del'],
];

function formatPlain(escaped) {
  let html = escaped;
  for (const [pattern, tag] of styles) html = html.replace(pattern, (_, before, inner) => `${before}<${tag}>${inner}</${tag}>`);
  html = html.replace(/(^|\n)&gt; ?([^\n]*)/g, (_, start, quoted) => `${start}<span class="quote">${quoted}</span>`);
  return emojify(html).replace(/\n/g, '<br>');
}

// Pieces already turned into HTML (code, links, mentions) wait behind placeholders while the rest is formatted,
// so formatting can span them ("*approved by <@U1>*") but never reach inside them.
const HOLD_OPEN = '\uE000';
const HOLD_CLOSE = '\uE001';

/** Slack mrkdwn → safe HTML. `names` maps user and channel IDs to names for mentions. */
export function mrkdwnToHtml(text, names = {}) {
  const held = [];
  const hold = (html) => `${HOLD_OPEN}${held.push(html) - 1}${HOLD_CLOSE}`;
  let source = String(text ?? '').replace(/[\uE000\uE001]/g, '');
  source = source.replace(/```\n?([\s\S]*?)```/g, (_, code) => hold(`<pre>${escapeHtml(decodeSlackEntities(code))}</pre>`));
  source = source.replace(/`([^`\n]+)`/g, (_, code) => hold(`<code>${escapeHtml(decodeSlackEntities(code))}</code>`));
  source = source.replace(/<([^<>\n]+)>/g, (_, inner) => hold(angleToken(inner, names)));
  const html = formatPlain(escapeText(decodeSlackEntities(source)));
  const restore = new RegExp(`${HOLD_OPEN}(\\d+)${HOLD_CLOSE}`, 'g');
  return html.replace(restore, (_, index) => held[Number(index)]);
}

/** A Block Kit text object (plain_text or mrkdwn) → safe HTML. */
export function textObjectToHtml(object, names = {}) {
  if (!object || typeof object !== 'object') return '';
  if (object.type === 'mrkdwn') return mrkdwnToHtml(object.text, names);
  const escaped = escapeHtml(object.text ?? '');
  return (object.emoji === false ? escaped : emojify(escaped)).replace(/\n/g, '<br>');
}
