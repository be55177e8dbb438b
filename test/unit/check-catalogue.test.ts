import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { runChecks } from '../../src/planning/checks/run-checks.js';
import { FINDING_CODES, findingCodeEntry } from '../../src/planning/checks/finding-codes.js';
import { healthySnapshot } from './check-snapshot-fixture.js';

/** The check catalogue as a whole: sorted output, resilience to odd data, and every code in the registry. */
const root = join(import.meta.dirname, '../..');
const REGISTRY = 'src/planning/checks/finding-codes.ts';
/** A finding code as the sources write it: a quoted literal of 2–3 capitals (or K8S) and three digits. */
const CODE_LITERAL = /['"`]((?:[A-Z]{2,3}|K8S)\d{3})['"`]/g;

/** The product's sources (the simulator, a package of its own, reports no findings), less the registry itself. */
function productSources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === 'src/sim' || entry.name === 'node_modules' ? [] : productSources(path);
    return entry.name.endsWith('.ts') && path !== REGISTRY ? [path] : [];
  });
}

function codesIn(files: string[]): Map<string, string[]> {
  const where = new Map<string, string[]>();
  for (const file of files) {
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(CODE_LITERAL)) where.set(m[1], [...new Set([...(where.get(m[1]) ?? []), relative(root, join(root, file))])]);
  }
  return where;
}

describe('the check catalogue', () => {
  it('has a registry entry for every code the sources emit (src/, jobs/, commands/), and no entry nothing emits', () => {
    // The plan's checks, the upgrade job's own per-hop state checks (UPG…, src/planning/checks/preflight-checks.ts), the
    // rollback preflight (RBK…, src/planning/rollback-preflight.ts) and the steps and commands that add findings.
    const emitted = codesIn(['src', 'jobs', 'commands'].flatMap(productSources));
    expect(emitted.size).toBeGreaterThan(35);
    expect([...emitted].filter(([code]) => !findingCodeEntry(code)).map(([code, files]) => `${code} (${files.join(', ')})`)).toEqual([]);
    expect(FINDING_CODES.map((entry) => entry.code).filter((code) => !emitted.has(code))).toEqual([]);
  });

  it('holds each code once, well-formed, with at least one severity and every text written', () => {
    const codes = FINDING_CODES.map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const entry of FINDING_CODES) {
      expect(entry.code).toMatch(/^(?:[A-Z]{2,3}|K8S)\d{3}$/);
      expect(entry.severities.length, entry.code).toBeGreaterThan(0);
      expect(new Set(entry.severities).size, entry.code).toBe(entry.severities.length);
      for (const text of [entry.title, entry.meaning, entry.remedy]) expect(text.trim().length, entry.code).toBeGreaterThan(3);
    }
  });

  it('reports, on the fixture snapshots, only registered codes at a severity the registry names', () => {
    const failed = healthySnapshot();
    failed.cluster = readOk({ ...(failed.cluster as any).value, status: 'FAILED' });
    const findings = [healthySnapshot(), failed].flatMap((s) => ['1.31', '1.33'].flatMap((target) => runChecks(s, target)));
    expect(findings.length).toBeGreaterThan(0);
    for (const finding of findings) expect(findingCodeEntry(finding.code)?.severities, finding.code).toContain(finding.severity);
  });

  it('returns errors first, then warnings, then infos', () => {
    const s = healthySnapshot();
    s.cluster = readOk({ ...(s.cluster as any).value, status: 'FAILED' });
    const severities = runChecks(s, '1.33').map((f) => f.severity);
    expect(severities).toEqual([...severities].sort((a, b) => ['error', 'warning', 'info'].indexOf(a) - ['error', 'warning', 'info'].indexOf(b)));
    expect(severities[0]).toBe('error');
  });

  it('a check that trips over unexpected data becomes one EKS099 finding; the others still run', () => {
    const s = healthySnapshot();
    s.cluster = readOk({ ...(s.cluster as any).value, status: 'FAILED' });
    s.kube = { ...s.kube, nodes: readOk([{ metadata: undefined } as any]) };
    const findings = runChecks(s, '1.31');
    expect(findings.filter((f) => f.code === 'EKS099').length).toBeGreaterThan(0);
    expect(findings.some((f) => f.code === 'EKS001')).toBe(true);
  });
});
