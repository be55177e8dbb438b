import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { simEnv, startSim } from '@eks-upgrade-bot/sim/kit';
import { settled } from './read-path-harness.js';

/**
 * `npx eks-upgrade` as a user runs it: `node bin/eks-upgrade.js …` in a child process (the build in dist/, made
 * afresh here from the sources under test, as `npm ci` makes it) with
 * only the standard AWS environment pointing at the simulator. Exit codes: 0 no blocking findings, 2 blocking
 * findings, 1 errors with a one-line message and no stack trace.
 */
const BIN = join(import.meta.dirname, '../../bin/eks-upgrade.js');
let workshop: SimServer;
let demo: SimServer;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(sim: SimServer, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...simEnv(sim), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', CLUSTERS_FILE: '', ...env }, cwd: tmpdir(), timeout: 50_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  execFileSync(process.execPath, ['bin/build.mjs'], { cwd: join(import.meta.dirname, '../..'), stdio: 'inherit' });
  [workshop, demo] = await Promise.all([startSim('workshop', { speed: 600 }), startSim('demo', { speed: 600 })]);
  await Promise.all([settled(workshop, 'eksworkshop-eksctl'), settled(demo, 'demo')]);
});
afterAll(async () => {
  await Promise.all([workshop?.close(), demo?.close()]);
});

describe('npx eks-upgrade against the simulator', () => {
  it('plan eksworkshop-eksctl --to 1.26 --output json: exit 2 and the documented JSON with the workshop blockers', async () => {
    const result = await run(workshop, ['plan', 'eksworkshop-eksctl', '--to', '1.26', '--output', 'json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    const plan = JSON.parse(result.stdout);
    expect(plan).toMatchObject({ cluster: 'eksworkshop-eksctl', from: '1.25', to: '1.26', blocking: true });
    const codes = new Set(plan.findings.map((f: { code: string }) => f.code));
    for (const code of ['K8S004', 'NG001', 'INS001', 'ADD001', 'FRG001', 'KAR002', 'NG004']) expect(codes).toContain(code);
    for (const finding of plan.findings) expect(Object.keys(finding)).toEqual(['code', 'severity', 'title', 'resources', 'remedy']);
    expect(plan.hops).toHaveLength(1);
    expect(plan.hops[0]).toMatchObject({ from: '1.25', to: '1.26', steps: expect.any(Array) });
  });

  it('plan with --output=markdown and the default target prints the playbook for the next minor', async () => {
    const markdown = await run(workshop, ['plan', 'eksworkshop-eksctl', '--output=markdown']);
    expect(markdown.code).toBe(2);
    expect(markdown.stdout).toMatch(/^# Upgrade eksworkshop-eksctl from 1.25 to 1.26\n/);
    expect(markdown.stdout).toContain('- [ ] **K8S004**');
  });

  it('exit 0 when nothing blocks (demo), with the text plan by default', async () => {
    const result = await run(demo, ['plan', 'demo']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Plan for demo \(us-west-2\): 1.30 → 1.31, 1 hop, ~\d+ (h|min).* — no blocking findings\n/);
  });

  it('exit 1 with one line and no stack: an unknown cluster, a bad option', async () => {
    const [unknown, badOption] = await Promise.all([run(workshop, ['plan', 'nope']), run(workshop, ['plan', 'eksworkshop-eksctl', '--output', 'yaml'])]);
    for (const result of [unknown, badOption]) {
      expect(result.code).toBe(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stdout).toBe('');
    }
    expect(unknown.stderr).toMatch(/^eks-upgrade: DescribeCluster for nope failed: ResourceNotFoundException: [^\n]*\n$/);
    expect(badOption.stderr).toMatch(/^eks-upgrade: --output must be one of text, json, markdown, not yaml\.\nUsage:/);
  });

  it('status --all --clusters-file: one row per configured cluster, exit 1 when one cannot be read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eks-upgrade-cli-'));
    const file = join(dir, 'clusters.yaml');
    writeFileSync(
      file,
      ['defaults: { channels: [C0OPS], requesters: [U0REQ], approvers: [U0APP] }', 'clusters:', '  - { name: eksworkshop-eksctl, region: us-west-2 }', '  - { name: ghost, region: us-west-2 }', ''].join('\n'),
    );
    const result = await run(workshop, ['status', '--all', '--clusters-file', file, '--output', 'json']);
    expect(result.code).toBe(1);
    const status = JSON.parse(result.stdout);
    expect(status.clusters.map((c: { name: string }) => c.name)).toEqual(['eksworkshop-eksctl', 'ghost']);
    expect(status.clusters[0]).toMatchObject({ version: '1.25', platformVersion: 'eks.44', status: 'ACTIVE', insights: expect.objectContaining({ error: expect.any(Number) }) });
    expect(status.clusters[0].nodes.map((n: { computeType: string }) => n.computeType)).toContain('fargate');
    expect(status.clusters[1].error).toMatch(/ResourceNotFoundException/);
    expect(result.stderr).toBe('eks-upgrade: 1 cluster(s) could not be read: ghost\n');
  });

  it('--endpoint-url works without AWS_ENDPOINT_URL', async () => {
    const result = await run(workshop, ['status', 'eksworkshop-eksctl', '--endpoint-url', workshop.url], { AWS_ENDPOINT_URL: '' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^eksworkshop-eksctl  us-west-2  1.25 \(eks.44\)  ACTIVE\n/);
  });
});
