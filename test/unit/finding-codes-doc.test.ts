import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FINDING_CODES } from '../../src/planning/checks/finding-codes.js';
import { FINDING_CODES_DOC, renderFindingCodesMarkdown } from '../../src/report/finding-codes-markdown.js';

/** docs/finding-codes.md is generated from the registry by `npm run docs`; it says nothing the registry does not. */
const root = join(import.meta.dirname, '../..');

describe('docs/finding-codes.md', () => {
  it('is what `npm run docs` writes from the registry (run it after changing src/planning/checks/finding-codes.ts)', () => {
    const file = readFileSync(join(root, FINDING_CODES_DOC), 'utf8');
    const expected = renderFindingCodesMarkdown();
    const differing = expected.split('\n').map((line, i) => [line, file.split('\n')[i]] as const).findIndex(([want, have]) => want !== have);
    expect(file === expected, `${FINDING_CODES_DOC} differs from the registry from line ${differing + 1} on; run npm run docs`).toBe(true);
  });

  it('has one row per registered code, under its group', () => {
    const rows = [...renderFindingCodesMarkdown().matchAll(/^\| \*\*([A-Z0-9]+)\*\* \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(['plan', 'job', 'rollback'].flatMap((group) => FINDING_CODES.filter((e) => e.group === group).map((e) => e.code)));
  });

  it('keeps a cell in its column: | is escaped, < and > outside code are entities, severities most severe first', () => {
    const text = renderFindingCodesMarkdown(
      [{ code: 'TST001', group: 'plan', severities: ['info', 'error'], title: 'a | b', meaning: 'kubectl annotate pod <pod> x; `--max-size <n>`', remedy: 'one\ntwo' }],
      [{ group: 'plan', heading: 'Tests', intro: 'Intro.' }],
    );
    expect(text).toContain('| **TST001** | error / info | a \\| b | kubectl annotate pod &lt;pod&gt; x; `--max-size <n>` | one two |');
    expect(text).toContain('## Tests\n\nIntro.\n\n| Code | Severity | Title | Meaning | Fix |');
  });
});
