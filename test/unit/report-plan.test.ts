import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/planning/planner/build-plan.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import type { Finding } from '../../src/ports/finding.js';
import { planJson } from '../../src/report/json-output.js';
import { renderPlanMessages } from '../../src/report/blocks/render-plan-blocks.js';
import { checkMessageBlocks } from '@eks-upgrade-bot/sim';
import { renderPlanMarkdown } from '../../src/report/render-plan-markdown.js';
import { renderPlanText } from '../../src/report/render-plan-text.js';
import { deployment, deploymentPod, mixedCluster, pdb, withKube } from './check-snapshot-fixture.js';

/** Plan renderers: snapshot-tested Block Kit, text and Markdown; Slack limits; the JSON shape. */
function blockedPlan(target = '1.32') {
  let s = mixedCluster();
  s = withKube(s, 'pods', [...(s.kube.pods as any).value, deploymentPod('orders', 'orders', 0, 'ip-orders', { app: 'orders' })]);
  s = withKube(s, 'deployments', [...(s.kube.deployments as any).value, deployment('orders', 'orders', 1)]);
  s = withKube(s, 'pdbs', [...(s.kube.pdbs as any).value, pdb('orders', 'orders-pdb', { app: 'orders' }, { minAvailable: 1 }, 0)]);
  return buildPlan(s, target);
}

function blockTexts(message: { blocks?: unknown[] }): string[] {
  return (message.blocks ?? []).map((b: any) => b.text?.text ?? b.elements?.map((e: any) => e.text).join(' ') ?? b.fields?.map((f: any) => f.text).join(' ') ?? '');
}

describe('plan renderers', () => {
  it('Slack: headline verdict, findings grouped by severity, steps per hop', () => {
    const messages = renderPlanMessages(blockedPlan());
    expect(messages).toMatchSnapshot();
    const texts = messages.flatMap(blockTexts).join('\n');
    expect(texts).toContain(':no_entry: *Blocked* by 1 error (K8S004)');
    expect(texts.indexOf('*Blocking (1)*')).toBeLessThan(texts.indexOf('*Warnings ('));
    expect(texts).toContain('*Hop 1: 1.30 → 1.31*');
    expect(texts).toContain('*Hop 2: 1.31 → 1.32*');
    expect(texts).toContain('npx eks-upgrade plan demo --to 1.32 --output markdown');
  });

  it('terminal text', () => {
    expect(renderPlanText(blockedPlan())).toMatchSnapshot();
  });

  it('Markdown playbook: findings as checkboxes with fixes, then numbered steps with commands', () => {
    const markdown = renderPlanMarkdown(blockedPlan());
    expect(markdown).toMatchSnapshot();
    expect(markdown).toContain('- [ ] **K8S004** — Deployment orders/orders has 1 replica');
    expect(markdown).toContain('   - [ ] `aws eks update-cluster-version --name demo --kubernetes-version 1.31`');
  });

  it('Slack: a plan too big for 3 messages keeps every message within limits and says how many findings were left out', () => {
    const plan = blockedPlan();
    const extra: Finding[] = Array.from({ length: 180 }, (_, i) => ({
      code: 'K8S003', severity: 'warning', title: `PDB shop/pdb-${i} allows 0 disruptions right now`, resources: Array.from({ length: 20 }, (_, j) => `pod/shop/p-${i}-${j}`), remedy: 'x'.repeat(300),
    }));
    const big = { ...plan, findings: [...plan.findings, ...extra] };
    const messages = renderPlanMessages(big, { maxMessages: 3 });
    expect(messages).toHaveLength(3);
    for (const message of [...messages, ...renderPlanMessages(blockedPlan())]) expect(checkMessageBlocks(message.blocks)).toEqual([]);
    let shownFindings = 0;
    for (const message of messages) {
      expect(message.blocks!.length).toBeLessThanOrEqual(50);
      for (const text of blockTexts(message)) {
        expect(text.length).toBeLessThanOrEqual(3000);
        shownFindings += (text.match(/^(• )?`[A-Z0-9]{5,6}` /gm) ?? []).length;
      }
    }
    const last = blockTexts(messages[2]).at(-1)!;
    const match = /(\d+) more findings?, (\d+) more steps did not fit in Slack — see the full plan with `npx eks-upgrade plan demo --to 1.32 --output markdown`/.exec(last);
    expect(match).not.toBeNull();
    const stepCount = big.hops.reduce((n, h) => n + h.steps.length, 0);
    // Every finding was either shown or counted; nothing disappeared silently.
    expect(shownFindings + Number(match![1])).toBe(big.findings.length);
    expect(Number(match![2])).toBe(stepCount);
  });

  it('JSON has the documented shape', () => {
    const json = planJson(blockedPlan()) as any;
    expect(Object.keys(json)).toEqual(['cluster', 'region', 'from', 'to', 'blocking', 'generatedAt', 'estimateMinutes', 'skewRule', 'policySource', 'insightsAsOf', 'insightsNote', 'findings', 'hops', 'incremental']);
    expect(Object.keys(json.findings[0])).toEqual(['code', 'severity', 'title', 'resources', 'remedy']);
    expect(json.hops.map((h: any) => [h.from, h.to])).toEqual([['1.30', '1.31'], ['1.31', '1.32']]);
    expect(json.hops[0].steps[0]).toMatchObject({ kind: 'preflight', phase: 'preflight', title: expect.any(String), estimateMinutes: 1 });
    expect(json.blocking).toBe(true);
  });

  it('a plan without findings says so', () => {
    const s = mixedCluster();
    s.addons = readOk([]);
    const plan = buildPlan(s, '1.31');
    expect(plan.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(blockTexts(renderPlanMessages(plan)[0]).join('\n')).toContain(':white_check_mark: *No blocking findings*');
  });
});
