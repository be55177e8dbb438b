/**
 * clusters.yaml as data: YAML 1.2 with its core schema, read by js-yaml.
 *
 * Why js-yaml and these types: the `yaml` package (used elsewhere, where files are small) took 280 ms to parse a
 * 1,000-cluster clusters.yaml in a fresh process, a twentieth of bench P2k's whole `status --all`; js-yaml takes about
 * 45 ms. js-yaml's own schemas differ from YAML 1.2's core schema on plain scalars (they read `1_000` and `0b11` as
 * numbers), so the scalars are resolved here exactly as the core schema says (YAML 1.2.2, section 10.3.2, "Tag
 * Resolution"), which is also what `yaml` does by default: test/unit/config-yaml.test.ts parses the same documents
 * with both and expects the same values and the same refusals.
 */

import { FAILSAFE_SCHEMA, load, Type, YAMLException } from 'js-yaml';

/** YAML 1.2 core schema null and booleans. */
const NULL = /^(?:~|null|Null|NULL)?$/;
const BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;
/** YAML 1.2 core schema integers: decimal with an optional sign, `0o` octal and `0x` hexadecimal without one. */
const INT_DECIMAL = /^[-+]?[0-9]+$/;
const INT_OCTAL = /^0o[0-7]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
/** YAML 1.2 core schema floats: fixed, exponent, and the infinities and not-a-number. */
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT_SPECIAL = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;

const coreNull = new Type('tag:yaml.org,2002:null', {
  kind: 'scalar',
  resolve: (text: string | null) => text === null || NULL.test(text),
  construct: () => null,
});

const coreBool = new Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (text: string | null) => text !== null && BOOL.test(text),
  construct: (text: string) => text[0] === 't' || text[0] === 'T',
});

const coreInt = new Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (text: string | null) => text !== null && (INT_DECIMAL.test(text) || INT_OCTAL.test(text) || INT_HEX.test(text)),
  construct: (text: string) => (INT_OCTAL.test(text) ? parseInt(text.slice(2), 8) : INT_HEX.test(text) ? parseInt(text.slice(2), 16) : parseInt(text, 10)),
});

const coreFloat = new Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (text: string | null) => text !== null && (FLOAT.test(text) || FLOAT_EXP.test(text) || FLOAT_SPECIAL.test(text)),
  construct: (text: string) => {
    if (!FLOAT_SPECIAL.test(text)) return parseFloat(text);
    if (text.slice(-3).toLowerCase() === 'nan') return NaN;
    return text.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  },
});

const CORE_SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: [coreNull, coreBool, coreInt, coreFloat] });

/** A %YAML directive for another version than 1.2 (1.1 would read yes and no as booleans). */
const OTHER_YAML_VERSION = /^%YAML[ \t]+(?!1\.2(?:[ \t#]|$))(\S+)/m;

/** A document whose aliases unfold past this many values for each character of text is refused (an "alias bomb"). */
const VALUES_PER_CHARACTER = 4;
const MIN_VALUES = 10_000;

export interface YamlProblem {
  /** The parser's reason, a sentence fragment such as "duplicated mapping key". */
  reason: string;
  /** 1-based, when the parser knows where. */
  at?: { line: number; col: number };
}

export class ConfigYamlError extends Error {
  constructor(readonly problem: YamlProblem, options?: ErrorOptions) {
    super(problem.reason, options);
    this.name = 'ConfigYamlError';
  }
}

/** The one document of `text` as plain data, or a ConfigYamlError naming what is wrong and where. */
export function parseConfigYaml(text: string): unknown {
  const directive = OTHER_YAML_VERSION.exec(text);
  if (directive) {
    const line = text.slice(0, directive.index).split('\n').length;
    throw new ConfigYamlError({ reason: `this file is read as YAML 1.2 (where yes and no are strings); remove the %YAML ${directive[1]} line`, at: { line, col: 1 } });
  }
  let data: unknown;
  try {
    data = load(text, { schema: CORE_SCHEMA });
  } catch (error) {
    if (!(error instanceof YAMLException)) throw error;
    const mark = error.mark as { line?: number; column?: number } | undefined;
    const at = mark && typeof mark.line === 'number' ? { line: mark.line + 1, col: (mark.column ?? 0) + 1 } : undefined;
    throw new ConfigYamlError({ reason: error.reason || 'not YAML', ...(at ? { at } : {}) }, { cause: error });
  }
  // js-yaml shares one object between an anchor and its aliases; the checks after parsing walk the values as a tree,
  // so a few nested aliases could stand for billions of values. Count them as the walk would see them.
  const budget = Math.max(MIN_VALUES, VALUES_PER_CHARACTER * text.length);
  if (unfoldedValues(data, budget) > budget) {
    throw new ConfigYamlError({ reason: `its aliases unfold to more than ${budget} values; write the repeated parts out, or put them under defaults:` });
  }
  // An empty document is null, as YAML 1.2 says (js-yaml gives undefined).
  return data === undefined ? null : data;
}

/** Values in `data` counted as a tree (an aliased value once per alias), stopping once past `limit`. */
function unfoldedValues(data: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [data];
  while (stack.length > 0 && count <= limit) {
    const value = stack.pop();
    count++;
    if (value === null || typeof value !== 'object') continue;
    for (const item of Array.isArray(value) ? value : Object.values(value)) stack.push(item);
  }
  return count;
}
