import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headings } from '../support/markdown-references.js';

/**
 * Nothing was lost when README.md moved into docs/ (issue 22): every heading of the README as it was at 41af502 (the
 * last commit with the 1,276-line README) is a heading, word for word at any level, of today's README.md or of a file
 * in docs/.
 */
const root = join(import.meta.dirname, '../..');
const OLD_README = '41af502';

function oldReadme(): string {
  try {
    return execFileSync('git', ['show', `${OLD_README}:README.md`], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    throw new Error(`reading README.md as of commit ${OLD_README} failed (${(error as Error).message.split('\n')[0]}); this test needs the repository's history: fetch it (git fetch --unshallow) and run it again.`);
  }
}

describe('the README move into docs/', () => {
  it('gives every heading of the old README a home in README.md or docs/*.md', () => {
    const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const homes = new Map<string, string[]>();
    for (const file of files) {
      for (const h of headings(readFileSync(join(root, file), 'utf8'))) homes.set(h.text, [...(homes.get(h.text) ?? []), file]);
    }
    const old = headings(oldReadme()).map((h) => h.text);
    expect(old).toHaveLength(29);
    expect(old.filter((text) => !homes.has(text))).toEqual([]);
  });
});
