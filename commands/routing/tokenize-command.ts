/**
 * Splits the text of a slash command into words the way a shell user expects: whitespace separates, "double" or
 * 'single' quotes group (the curly quotes phones and macOS substitute count too), Slack's escapes are undone.
 * Pure and synchronous: it runs before the ack.
 */
export type TokenizeResult = { ok: true; words: string[] } | { ok: false; problem: string };

const OPENING_TO_CLOSING: Record<string, string> = { '"': '"', "'": "'", '\u201c': '\u201d', '\u2018': '\u2019', '\u201d': '\u201d' };

/**
 * With `should_escape: true` (our manifest) Slack sends mentions as `<@U123|name>`, `<#C123|name>`,
 * `<!subteam^S123|@team>` and auto-linked text as `<http://x|x>`, and escapes & < > as entities. We keep the part a
 * person would have typed: the ID for users and user groups (what clusters.yaml lists), the name for channels and
 * links.
 */
export function unescapeSlackText(text: string): string {
  const withoutMentions = text.replace(/<([^<>]*)>/g, (_whole, inner: string) => {
    const [target, label] = inner.split('|', 2);
    if (target.startsWith('@')) return target.slice(1);
    if (target.startsWith('#')) return label ?? target.slice(1);
    if (target.startsWith('!subteam^')) return target.slice('!subteam^'.length);
    if (target.startsWith('!')) return `@${label ?? target.slice(1)}`;
    return label ?? target.replace(/^mailto:/, '');
  });
  return withoutMentions.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

export function tokenizeCommand(raw: string): TokenizeResult {
  const text = unescapeSlackText(raw);
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let closing: string | undefined;
  for (const char of text) {
    if (closing !== undefined) {
      if (char === closing || (closing === '\u201d' && char === '"')) closing = undefined;
      else current += char;
      continue;
    }
    if (char in OPENING_TO_CLOSING) {
      closing = OPENING_TO_CLOSING[char];
      inWord = true;
      continue;
    }
    if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
      continue;
    }
    current += char;
    inWord = true;
  }
  if (closing !== undefined) return { ok: false, problem: 'A quote is not closed.' };
  if (inWord) words.push(current);
  // Autocorrect turns "--to" into "—to" (em dash) or "–to" (en dash); read them as the flag that was meant.
  return { ok: true, words: words.map((word) => word.replace(/^[\u2014\u2013]/, '--')) };
}
