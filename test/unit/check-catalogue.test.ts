import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { runChecks } from '../../src/planning/run-checks.js';
import { healthySnapshot } from './check-snapshot-fixture.js';

/** The check catalogue as a whole: sorted output, resilience to odd data, and every code documented. */
const planningDir = join(import.meta.dirname, '../../src/planning');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the check catalogue', () => {
  it('documents every code the checks and the job preflight can emit in docs/finding-codes.md, and documents no code that does not exist', () => {
    // The plan's checks, the upgrade job's own per-hop state checks (UPG…, src/planning/preflight-checks.ts) and the
    // rollback preflight (RBK…, src/planning/rollback-preflight.ts).
    const sources = sourceFiles(planningDir);
    const emitted = new Set(sources.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/'((?:EKS|NET|ADD|NG|ASG|KAR|K8S|FRG|INS|OPS|UPG|AVL|CMP|HLM|ACC|RBK)\d{3})'/g)].map((m) => m[1])));
    const documented = new Set([...readFileSync(join(planningDir, '../../docs/finding-codes.md'), 'utf8').matchAll(/\*\*([A-Z0-9]{5,6})\*\*/g)].map((m) => m[1]));
    expect(emitted.size).toBeGreaterThan(35);
    expect([...emitted].filter((code) => !documented.has(code))).toEqual([]);
    expect([...documented].filter((code) => !emitted.has(code))).toEqual([]);
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
