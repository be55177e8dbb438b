import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import picomatch from 'picomatch';

/**
 * What the documentation points at, checked against the tree (test/unit/docs-links.test.ts).
 *
 * Two kinds of reference count:
 * - Markdown links and images, `[text](target)`, outside code: a relative target must be a file or folder of the
 *   repository; `#anchor` (alone or after a `.md` file) must be a heading of that file, slugged as GitHub does.
 *   Links to `http:`, `https:` and `mailto:` are not followed.
 * - Repository paths inside code (inline `code` and fenced blocks): every word that starts with one of the
 *   repository's folders and a slash (`src/`, `commands/`, `jobs/`, `test/`, `bench/`, `deploy/`, `docs/`, `bin/`,
 *   `.ci/`), and every word that is exactly one of the top-level files below. A path must exist; a glob (`*`, `**`)
 *   or a placeholder (`<name>`, `{minor}`, `…`, each standing for any characters within a path segment) must match
 *   at least one file. Trailing punctuation (`.,;:)`) is not part of the path.
 */
export const PATH_FOLDERS = ['src', 'commands', 'jobs', 'test', 'bench', 'deploy', 'docs', 'bin', '.ci'];
export const TOP_LEVEL_FILES = [
  'README.md', 'package.json', 'package-lock.json', 'tsconfig.json', 'vitest.config.ts', 'vitest.image.config.ts',
  'Dockerfile', 'docker-compose.yml', 'manifest.yml', 'clusters.example.yaml', '.dependency-cruiser.cjs',
];

export interface Problem {
  file: string;
  line: number;
  text: string;
  why: string;
}

interface Segment {
  kind: 'prose' | 'code';
  text: string;
  line: number;
}

/** Splits a Markdown file into prose and code (fenced blocks and inline code spans), keeping line numbers. */
export function segments(markdown: string): Segment[] {
  const out: Segment[] = [];
  const lines = markdown.split('\n');
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const n = index + 1;
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      else out.push({ kind: 'code', text: line, line: n });
      return;
    }
    if (marker) {
      fence = marker;
      return;
    }
    let rest = line;
    for (let m = /(`+)(.+?)\1/.exec(rest); m; m = /(`+)(.+?)\1/.exec(rest)) {
      out.push({ kind: 'prose', text: rest.slice(0, m.index), line: n });
      out.push({ kind: 'code', text: m[2], line: n });
      rest = rest.slice(m.index + m[0].length);
    }
    out.push({ kind: 'prose', text: rest, line: n });
  });
  return out;
}

/** The anchors GitHub gives a file's headings (lowercase, punctuation dropped, spaces to hyphens, -1 … for repeats). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const heading of headings(markdown)) {
    const base = heading.text
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The ATX headings of a Markdown file, outside fenced code. */
export function headings(markdown: string): { level: number; text: string }[] {
  const out: { level: number; text: string }[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) out.push({ level: m[1].length, text: m[2] });
  }
  return out;
}

/** Every file (not folder) below the repository's path folders, as repository-relative paths with `/`. */
function repositoryFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      if (entry.name === 'node_modules' || entry.name === '.git') return [];
      const path = `${dir}/${entry.name}`;
      return entry.isDirectory() ? walk(path) : [path];
    });
  return PATH_FOLDERS.filter((folder) => existsSync(join(root, folder))).flatMap(walk);
}

const PATH_WORD = new RegExp(`(?<![\\w./@-])(?:${PATH_FOLDERS.map((f) => f.replace('.', '\\.')).join('|')})/[^\\s\`'"()\\[\\]|,;]*`, 'g');

/** The repository paths a piece of code names (see the rule above). */
export function pathsIn(code: string): string[] {
  const words = [...code.matchAll(PATH_WORD)].map((m) => m[0].replace(/[.:]+$/, ''));
  const topLevel = code.split(/[\s`'"(),;|[\]]+/).map((w) => w.replace(/[.:]+$/, '')).filter((w) => TOP_LEVEL_FILES.includes(w));
  return [...words, ...topLevel];
}

function pathExists(root: string, path: string, files: () => string[]): boolean {
  const placeholder = /[*?]|<[^>]*>|\{[^}]*\}|…/;
  if (!placeholder.test(path)) return existsSync(join(root, path));
  const glob = path.replace(/<[^>]*>|\{[^}]*\}|…/g, '*').replace(/\/$/, '/**');
  const isMatch = picomatch(glob, { dot: true });
  // A folder matches too: every ancestor folder of a file is a candidate.
  return files().some((file) => {
    for (let path = file; path.includes('/'); path = path.slice(0, path.lastIndexOf('/'))) if (isMatch(path)) return true;
    return false;
  });
}

/** Every link and repository path in the given Markdown files (repository-relative) that does not resolve. */
export function brokenReferences(root: string, markdownFiles: string[]): Problem[] {
  let cached: string[] | undefined;
  const files = () => (cached ??= repositoryFiles(root));
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    if (!anchorsOf.has(file)) anchorsOf.set(file, headingAnchors(readFileSync(join(root, file), 'utf8')));
    return anchorsOf.get(file)!;
  };
  const problems: Problem[] = [];
  for (const file of markdownFiles) {
    for (const segment of segments(readFileSync(join(root, file), 'utf8'))) {
      const report = (text: string, why: string) => problems.push({ file, line: segment.line, text, why });
      if (segment.kind === 'code') {
        for (const path of pathsIn(segment.text)) {
          if (!pathExists(root, path, files)) report(path, 'names a repository path that does not exist');
        }
        continue;
      }
      for (const m of segment.text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1];
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = pathPart === '' ? file : relative(root, resolve(root, dirname(file), decodeURIComponent(pathPart))).split('\\').join('/');
        if (resolved.startsWith('..')) {
          report(target, 'points outside the repository');
          continue;
        }
        if (!existsSync(join(root, resolved))) {
          report(target, `points at ${resolved}, which does not exist`);
          continue;
        }
        if (anchor !== undefined) {
          if (!resolved.endsWith('.md') || statSync(join(root, resolved)).isDirectory()) report(target, 'has an anchor on a file that is not Markdown');
          else if (!anchors(resolved).has(anchor)) report(target, `has no heading #${anchor} in ${resolved}`);
        }
      }
    }
  }
  return problems;
}
