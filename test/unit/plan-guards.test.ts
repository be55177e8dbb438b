import { describe, expect, it } from 'vitest';
import { parseClustersYaml } from '../../src/config/clusters-config.js';
import { buildPlan } from '../../src/planning/planner/build-plan.js';
import { policyFromConfig } from '../../src/planning/plan-policy.js';
import { renderPlanMarkdown } from '../../src/report/render-plan-markdown.js';
import { renderPlanText } from '../../src/report/render-plan-text.js';
import { renderPlanMessages } from '../../src/report/blocks/render-plan-blocks.js';
import { mixedCluster } from './check-snapshot-fixture.js';

const config = parseClustersYaml(`clusters:
  - name: mixed
    region: us-west-2
    channels: [C0OPS]
    requesters: [U0REQ]
    approvers: [U0APP]
    guards:
      - name: checkout available
        prometheus: { url: "http://prometheus:9090", query: "min(up{job=\\"checkout\\"})", breachWhen: "< 1" }
      - name: critical alerts
        alertmanager: { url: "http://alertmanager:9093", matchers: ['severity="critical"'] }
`);

describe('a plan lists the guards that will watch the upgrade', () => {
  const line = 'checkout available: min(up{job="checkout"}) (breached when < 1); critical alerts: alerts matching severity="critical"';

  it('in the terminal, in Markdown and in Slack', () => {
    const plan = buildPlan(mixedCluster(), '1.31', policyFromConfig(config.clusters[0]));
    expect(plan.guards).toEqual(['checkout available: min(up{job="checkout"}) (breached when < 1)', 'critical alerts: alerts matching severity="critical"']);
    expect(renderPlanText(plan)).toContain(`Guards watching every step that acts (a breach stops the upgrade): ${line}.`);
    expect(renderPlanMarkdown(plan)).toContain(`- **Guards** (watch every step that acts; a breach stops the upgrade): ${line}`);
    expect(JSON.stringify(renderPlanMessages(plan))).toContain('Guards watching every step that acts (a breach stops the upgrade): checkout available: min(up{job=\\"checkout\\"}) (breached when &lt; 1)');
  });

  it('says nothing of guards when there are none', () => {
    const plan = buildPlan(mixedCluster(), '1.31', policyFromConfig({ ...config.clusters[0], guards: [] }));
    expect(plan.guards).toBeUndefined();
    expect(renderPlanText(plan)).not.toContain('Guards');
  });
});
