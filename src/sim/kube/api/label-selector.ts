/**
 * Label selectors as the apiserver parses them (k8s.io/apimachinery/pkg/labels): `a=b`, `a==b`, `a!=b`,
 * `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`, comma-separated (AND), plus metav1.LabelSelector
 * objects ({matchLabels, matchExpressions}) as PDBs, deployments and node affinity carry them.
 */
export interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values: string[];
}

export type Labels = Record<string, string> | undefined;

export class SelectorParseError extends Error {}

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

const KEY = String.raw`[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?`;
const VALUE = String.raw`[A-Za-z0-9._-]*`;

export function parseLabelSelector(text: string | undefined | null): Requirement[] {
  if (!text || !text.trim()) return [];
  return splitTopLevel(text).map((part) => {
    let m: RegExpExecArray | null;
    if ((m = new RegExp(`^!\\s*(${KEY})$`).exec(part))) return { key: m[1], operator: 'DoesNotExist', values: [] };
    if ((m = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(part))) {
      const values = m[4].split(',').map((v) => v.trim()).filter((v) => v.length > 0);
      return { key: m[1], operator: m[3] === 'in' ? 'In' : 'NotIn', values };
    }
    if ((m = new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(${VALUE})$`).exec(part))) {
      return { key: m[1], operator: m[3] === '!=' ? 'NotIn' : 'In', values: [m[4]] };
    }
    if ((m = new RegExp(`^(${KEY})\\s*(>|<)\\s*(-?\\d+)$`).exec(part))) {
      return { key: m[1], operator: m[3] === '>' ? 'Gt' : 'Lt', values: [m[4]] };
    }
    if ((m = new RegExp(`^(${KEY})$`).exec(part))) return { key: m[1], operator: 'Exists', values: [] };
    throw new SelectorParseError(`unable to parse requirement: found '${part}', expected: key, !key, key=value, key!=value, key in (…), key notin (…)`);
  });
}

export function matchesRequirement(labels: Labels, r: Requirement): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels![r.key] : undefined;
  switch (r.operator) {
    case 'In':
      return has && r.values.includes(value!);
    case 'NotIn':
      return !has || !r.values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const n = Number(value);
      const bound = Number(r.values[0]);
      return r.operator === 'Gt' ? n > bound : n < bound;
    }
  }
}

export function matchesRequirements(labels: Labels, requirements: Requirement[]): boolean {
  return requirements.every((r) => matchesRequirement(labels, r));
}

/** metav1.LabelSelector → requirements. `undefined` (a nil selector) matches nothing; `{}` matches everything. */
export function requirementsOfSelector(selector: any): Requirement[] | undefined {
  if (selector === undefined || selector === null) return undefined;
  const requirements: Requirement[] = Object.entries<string>(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: 'In',
    values: [String(value)],
  }));
  for (const e of selector.matchExpressions ?? []) {
    requirements.push({ key: e.key, operator: e.operator, values: (e.values ?? []).map(String) });
  }
  return requirements;
}

export function selectorMatches(selector: any, labels: Labels): boolean {
  const requirements = requirementsOfSelector(selector);
  return requirements !== undefined && matchesRequirements(labels, requirements);
}
