/**
 * Zod's validation issues as plain sentences for people (the environment and clusters.yaml): every issue at once,
 * each with its path, and a "did you mean …?" for a key that is one typo away from a known one.
 *
 *   PORT must be a number (got "eighty")
 *   clusters[0] (demo): unknown key "aprovers": did you mean approvers?
 */

import type { z } from 'zod';

/** One issue in words, without its path; `value` is what the path held (for "got …"). */
export function plainIssueMessage(issue: z.core.$ZodIssue, value: unknown, schema?: z.ZodType): string {
  const got = value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
  // Our own messages (regex, refine, min/max with a text) are already sentences: keep them.
  if (!/^(Invalid|Too (small|big)|Unrecognized key)/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return 'is required';
      return `must be ${article(issue.expected)}${got}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}${got}`;
    case 'too_small':
      return issue.origin === 'array' ? `must list at least ${String(issue.minimum)}` : `must be at least ${String(issue.minimum)}${got}`;
    case 'too_big':
      return issue.origin === 'array' ? `must list at most ${String(issue.maximum)}` : `must be at most ${String(issue.maximum)}${got}`;
    case 'unrecognized_keys': {
      const known = schema ? knownKeys(schema, issue.path) : [];
      return issue.keys
        .map((key) => {
          const near = closest(key, known);
          return `unknown key "${key}"${near ? `: did you mean ${near}?` : known.length > 0 ? ` (known keys: ${known.join(', ')})` : ''}`;
        })
        .join('; ');
    }
    case 'invalid_format':
      return `is not a valid ${issue.format}${got}`;
    default:
      return `is not valid${got}`;
  }
}

function article(type: string): string {
  if (type === 'int') return 'a whole number';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** The value at an issue's path in the raw input, for "got …" (undefined when the path does not exist). */
export function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let here: unknown = raw;
  for (const key of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<PropertyKey, unknown>)[key];
  }
  return here;
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** The keys the object schema at `path` accepts (walking objects, arrays, records, optionals and defaults). */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let here: z.ZodType | undefined = schema;
  const unwrap = (s: z.ZodType): z.ZodType => {
    let def = defOf(s);
    while (def.innerType || def.in) {
      s = (def.innerType ?? def.in)!;
      def = defOf(s);
    }
    return s;
  };
  for (const key of path) {
    if (!here) return [];
    const def = defOf(unwrap(here));
    if (def.type === 'object') here = def.shape?.[String(key)];
    else if (def.type === 'array') here = def.element;
    else if (def.type === 'record') here = def.valueType;
    else return [];
  }
  if (!here) return [];
  const def = defOf(unwrap(here));
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

/** The known key at most two edits away (case-insensitive), if exactly one is closest. */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(1, Math.min(2, Math.floor(word.length / 3))) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length];
}
