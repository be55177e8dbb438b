import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { builtEntry } from '../support/built-entry.js';
import { ROOT } from '../support/spawn-tsx.js';

/**
 * The test kit's bundles of the entry points its tests start as processes (built-entry.ts): a process started from
 * one runs today's sources, and finds files next to its sources as under tsx.
 */
const dir = `node_modules/.cache/built-entry-test-${process.pid}`;
const bundles = join(ROOT, 'node_modules/.cache/eks-upgrade-bot-tests');
afterAll(() => {
  rmSync(join(ROOT, dir), { recursive: true, force: true });
  for (const file of readdirSync(bundles)) if (file.startsWith(dir.replace(/[/.]/g, '_'))) rmSync(join(bundles, file));
});

function writeSource(name: string, text: string, mtime: Date): void {
  writeFileSync(join(ROOT, dir, name), text);
  utimesSync(join(ROOT, dir, name), mtime, mtime);
}

const runNode = async (entry: string) => execFileSync(process.execPath, await builtEntry(entry), { cwd: ROOT, encoding: 'utf8' }).trim();

describe('builtEntry', () => {
  it('runs the entry with its imports, keeps each source file\'s import.meta.url, and builds again once a source it bundled changes', async () => {
    mkdirSync(join(ROOT, dir), { recursive: true });
    const past = new Date(Date.now() - 60_000);
    writeSource('entry.ts', "import { word } from './word.js';\nimport { parse } from 'yaml';\nconsole.log(JSON.stringify({ word, parsed: parse('a: 1'), url: import.meta.url }));\n", past);
    writeSource('word.ts', "export const word: string = 'one';\n", past);

    const first = JSON.parse(await runNode(`${dir}/entry.ts`));
    expect(first).toEqual({ word: 'one', parsed: { a: 1 }, url: pathToFileURL(join(ROOT, dir, 'entry.ts')).href });

    // An imported file changes after the bundle was built: the next start runs the new text.
    writeSource('word.ts', "export const word: string = 'two';\n", new Date(Date.now() + 60_000));
    expect(JSON.parse(await runNode(`${dir}/entry.ts`)).word).toBe('two');
  });

  it('gives concurrent tests of one process (describe.concurrent) the same fresh bundle, built once', async () => {
    mkdirSync(join(ROOT, dir), { recursive: true });
    const past = new Date(Date.now() - 60_000);
    writeSource('twice.ts', "import { word } from './word3.js';\nconsole.log(word);\n", past);
    writeSource('word3.ts', "export const word: string = 'three';\n", past);
    const started = await Promise.all([1, 2, 3].map(() => builtEntry(`${dir}/twice.ts`)));
    expect(new Set(started.map((args) => args.join(' '))).size).toBe(1);
    expect(execFileSync(process.execPath, started[0], { cwd: ROOT, encoding: 'utf8' }).trim()).toBe('three');
    expect(readdirSync(bundles).filter((file) => file.startsWith('.staging-'))).toEqual([]);
  });
});
