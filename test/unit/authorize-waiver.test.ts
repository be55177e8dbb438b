import { describe, expect, it } from 'vitest';
import { parseClustersConfig, type ClusterConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import type { AuthDeps } from '../../src/domain/authorize.js';
import { authorizeWaiverDecision, authorizeWaiverRequest } from '../../src/waivers/policy/authorize-waiver.js';

/** Who may ask for a waiver (requesters, approvers) and who may decide (approvers; not the asker under twoPersonRule). */
const [demo, strict] = parseClustersConfig({
  clusters: [
    { name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP', 'S0ONCALL'] },
    { name: 'strict', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP', 'U0REQ'], twoPersonRule: true },
  ],
}).clusters as [ClusterConfig, ClusterConfig];
const deps: AuthDeps = { logger: createLogger({ level: 'silent' }), usergroups: { members: async (id) => (id === 'S0ONCALL' ? ['U0ONCALL'] : []) } };
const asked = { requestedBy: 'U0REQ' };

describe('waiver authorization', () => {
  it('requesters and approvers (group members included) may ask; anyone else is told who may', async () => {
    expect(await authorizeWaiverRequest(deps, demo, 'U0REQ')).toEqual({ allowed: true });
    expect(await authorizeWaiverRequest(deps, demo, 'U0ONCALL')).toEqual({ allowed: true });
    const refused = await authorizeWaiverRequest(deps, demo, 'U0RANDOM');
    expect(refused).toEqual({ allowed: false, reason: 'Only the requesters and approvers of demo may ask to waive its findings: <@U0REQ>, <@U0APP>, <!subteam^S0ONCALL>.' });
  });

  it('approvers decide; under the two-person rule the asker may reject or revoke but not approve', async () => {
    expect(await authorizeWaiverDecision(deps, demo, asked, 'U0APP', 'approve')).toEqual({ allowed: true });
    expect(await authorizeWaiverDecision(deps, demo, asked, 'U0REQ', 'approve')).toMatchObject({ allowed: false, reason: expect.stringMatching(/^Only the approvers of demo may approve its waivers/) });
    expect(await authorizeWaiverDecision(deps, strict, asked, 'U0REQ', 'approve')).toMatchObject({ allowed: false, reason: expect.stringMatching(/two-person rule: you asked for this waiver, so another approver must approve it \(<@U0APP>\)/) });
    expect(await authorizeWaiverDecision(deps, strict, asked, 'U0REQ', 'revoke')).toEqual({ allowed: true });
    expect(await authorizeWaiverDecision(deps, strict, asked, 'U0APP', 'approve')).toEqual({ allowed: true });
  });
});
