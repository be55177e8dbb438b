import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenReferences, pathsIn } from '../support/markdown-references.js';

/**
 * The documentation points only at what exists: every Markdown link (a file, a folder, a heading's #anchor) and
 * every repository path in code (`src/…`, `jobs/…`, `deploy/…`, `package.json`, …; globs and placeholders must match
 * something) in README.md and docs/*.md. The rule is in test/support/markdown-references.ts.
 */
const root = join(import.meta.dirname, '../..');
const markdownFiles = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('the documentation', () => {
  it('links only to files, folders and headings that exist, and names only repository paths that exist', () => {
    const problems = brokenReferences(root, markdownFiles).map((p) => `${p.file}:${p.line}: ${p.text} ${p.why}`);
    expect(problems).toEqual([]);
  });

  it('reads paths out of code the way the rule says', () => {
    expect(pathsIn('kubectl apply -f deploy/rbac/cluster-role.yaml')).toEqual(['deploy/rbac/cluster-role.yaml']);
    expect(pathsIn('(src/aws/) and jobs/*-step.ts: see')).toEqual(['src/aws/', 'jobs/*-step.ts']);
    expect(pathsIn('node_modules/.bin/vitest /usr/bin/node @eks-upgrade-bot/sim dist/cli.cjs')).toEqual([]);
    expect(pathsIn('the Dockerfile, package.json.')).toEqual(['Dockerfile', 'package.json']);
  });

  it('finds a broken link, anchor and path (the check can fail)', () => {
    const problems = brokenReferences(root, ['test/fixtures/docs-links/broken.md']).map((p) => p.text);
    expect(problems).toEqual(['../../../docs/no-such-file.md', '#no-such-heading', '../../../docs/rollback.md#no-such-heading', 'src/no-such-dir/', 'jobs/*-no-such-step.ts', 'src/<name>/no-such.ts']);
  });
});
