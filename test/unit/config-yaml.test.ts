import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseWithYamlPackage } from 'yaml';
import { parseClustersYaml } from '../../src/config/clusters-config.js';
import { ConfigYamlError, parseConfigYaml } from '../../src/config/config-yaml.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** Plain scalars whose type YAML 1.1, js-yaml's own schemas and YAML 1.2's core schema disagree on. */
const SCALARS = [
  '1_000', '0b101', '0x1F', '-0x1F', '0o17', '-0o17', '017', '+12', '-12', '0', '-0', '00', '9007199254740993',
  '1e3', '1E-3', '.5', '1.', '1.0', '1.50', '-.5e2', '0.1.2', '.inf', '-.Inf', '+.INF', '.NaN', '.nan', '.Nan',
  '~', 'null', 'Null', 'NULL', 'nULL', '', 'true', 'True', 'TRUE', 'tRUE', 'yes', 'no', 'on', 'off', 'y', 'n',
  '2024-01-01', '2024-01-01T00:00:00Z', '12:30', '1:20', '0x', '0o8', '0xG', '+0x1', '1,000', '$1', '"12"', "'12'",
  '!!str 12', '!!int "12"', '!!null ""', '!!bool "true"', '"a\\tb"', '"\\u00e9"', "'it''s'", '1h', '24h',
];

/** Documents beyond single scalars: the shapes clusters.yaml takes, and ways to get them wrong. */
const DOCUMENTS = [
  'a: &x [1, 2]\nb: *x\n',
  'base: &b {x: 1}\nc:\n  <<: *b\n  y: 2\n',
  'a: 1\n---\nb: 2\n',
  'a: 1\na: 2\n',
  '1: a\n2.5: b\ntrue: c\n',
  'a: |\n  x\n  y\n',
  'a: >-\n  x\n  y\n',
  '"a b": 1\n',
  '- a\n- b\n',
  'a:\n\t- x\n',
  'a: [1, 2\n',
  '',
  '# only a comment\n',
  '---\n',
  'a: b: c\n',
  'a: "x\n',
  'a: *nope\n',
  'a: !!map {b: 1}\n',
  'a: !!seq [1]\n',
  '%YAML 1.2\n---\na: yes\n',
  'a: 1 # c\n',
  'a:\n  - b: 1\n    c: 2\n',
  'clusters:\n  - name: a\n   region: x\n',
  'clusters: [oops\n',
];

/** Every ```yaml block of docs/ and the example file: what users copy into clusters.yaml. */
function documentedYaml(): Array<[string, string]> {
  const blocks: Array<[string, string]> = [['clusters.example.yaml', readFileSync(join(ROOT, 'clusters.example.yaml'), 'utf8')]];
  for (const file of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(ROOT, 'docs', file), 'utf8');
    let n = 0;
    for (const match of text.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) blocks.push([`docs/${file} block ${++n}`, match[1]]);
  }
  return blocks;
}

type Outcome = { value: string } | { refused: true };

/** What a parser made of a document: its value (NaN and the infinities spelled out), or that it refused it. */
function outcomeOf(parse: (text: string) => unknown, text: string): Outcome {
  try {
    return { value: JSON.stringify(parse(text), (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? `number:${v}` : v)) ?? 'undefined' };
  } catch {
    return { refused: true };
  }
}

describe('clusters.yaml is read as YAML 1.2 with its core schema', () => {
  const cases: Array<[string, string]> = [...SCALARS.map((s): [string, string] => [`v: ${s}`, `v: ${s}\n`]), ...DOCUMENTS.map((d): [string, string] => [JSON.stringify(d), d]), ...documentedYaml()];

  it.each(cases)('%s: the same value, or the same refusal, as the yaml package', (_name, text) => {
    expect(outcomeOf(parseConfigYaml, text)).toEqual(outcomeOf(parseWithYamlPackage, text));
  });

  it('reads the scalars as the core schema says, where YAML 1.1 and js-yaml read them otherwise', () => {
    const v = (s: string) => (parseConfigYaml(`v: ${s}\n`) as { v: unknown }).v;
    expect([v('1_000'), v('0b101'), v('yes'), v('off'), v('2024-01-01'), v('1:20'), v('-0x1F')]).toEqual(['1_000', '0b101', 'yes', 'off', '2024-01-01', '1:20', '-0x1F']);
    expect([v('0o17'), v('017'), v('0x1F'), v('+12'), v('1e3'), v('.5'), v('~'), v('True')]).toEqual([15, 17, 31, 12, 1000, 0.5, null, true]);
    expect([v('.inf'), v('-.Inf'), v('.NaN')]).toEqual([Infinity, -Infinity, NaN]);
  });
});

describe('what clusters.yaml refuses that the yaml package lets through with a warning', () => {
  it.each([
    ['an explicit tag it cannot resolve', 'v: !!float 1\n', 'cannot resolve a node with !<tag:yaml.org,2002:float> explicit tag'],
    ['a YAML 1.1 type', 'v: !!timestamp 2024-01-01\n', 'unknown tag !<tag:yaml.org,2002:timestamp>'],
    ['a local tag', 'v: !custom x\n', 'unknown tag !<!custom>'],
    ['a %YAML 1.1 directive, under which yes would be true', '%YAML 1.1\n---\na: yes\n', 'this file is read as YAML 1.2 (where yes and no are strings); remove the %YAML 1.1 line'],
  ])('%s', (_name, text, reason) => {
    expect(() => parseConfigYaml(text)).toThrow(ConfigYamlError);
    expect(() => parseConfigYaml(text)).toThrow(reason);
  });

  it('refuses aliases that unfold past four values a character, before anything walks them', () => {
    // Nine levels of ten aliases each: a billion strings from 400 characters. Walking them would outlast the test's
    // time-out; the refusal counts only to its limit.
    const levels = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 9; i++) levels.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    expect(() => parseConfigYaml(`${levels.join('\n')}\n`)).toThrow('its aliases unfold to more than 10000 values; write the repeated parts out, or put them under defaults:');
    expect(() => parseConfigYaml('&a [*a]\n')).toThrow('its aliases unfold');
  });

  it('reads a null key and a list key as text, as docs/configuration.md says (the yaml package gives "" and "[ a, b ]")', () => {
    expect(parseConfigYaml('~: 1\n[a, b]: 2\n')).toEqual({ null: 1, 'a,b': 2 });
  });

  it('still reads anchors and aliases used as the YAML spec means them', () => {
    expect(parseConfigYaml('base: &b {region: us-west-2}\nclusters:\n  - *b\n  - *b\n')).toEqual({ base: { region: 'us-west-2' }, clusters: [{ region: 'us-west-2' }, { region: 'us-west-2' }] });
  });
});

describe('a YAML mistake in clusters.yaml', () => {
  it('is named with its line, column and a caret under it', () => {
    expect(() => parseClustersYaml('clusters:\n  - name: a\n   region: x\n')).toThrow(
      ['clusters.yaml: not valid YAML at line 3, column 4: bad indentation of a sequence entry', '  3 |    region: x', '    |    ^'].join('\n'),
    );
  });

  it('an empty file, or one of comments only, is named as empty, with where to start', () => {
    for (const text of ['', '\n', '# the clusters go here\n']) {
      expect(() => parseClustersYaml(text)).toThrow(/^clusters\.yaml: the file is empty \(or holds only comments\); list the clusters under `clusters:`, as clusters\.example\.yaml does/);
      expect(() => parseClustersYaml(text)).not.toThrow(/YAML|null|object/);
    }
  });
});
