import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { parseClustersConfig, type ClusterConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import { authorizeGate, authorizeJobControl, authorizeStart, type AuthDeps } from '../../src/domain/authorize.js';
import { createUsergroupResolver } from '../../src/slack/usergroup-resolver.js';
import { createManualClock } from '@eks-upgrade-bot/sim';

const config = parseClustersConfig({
  clusters: [
    { name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ', 'S0PLATFORM'], approvers: ['U0APP', 'U0REQ', 'S0ONCALL'] },
    { name: 'strict', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP', 'U0REQ'], twoPersonRule: true },
  ],
});
const [demo, strict] = config.clusters as [ClusterConfig, ClusterConfig];
const groups: Record<string, string[]> = { S0PLATFORM: ['U0PLAT'], S0ONCALL: ['U0ONCALL'] };
const logger = createLogger({ level: 'silent' });
const deps: AuthDeps = {
  logger,
  usergroups: {
    async members(id) {
      if (id === 'S0BROKEN') throw new Error('missing_scope');
      return groups[id] ?? [];
    },
  },
};
const job = { requestedBy: 'U0REQ' };

describe('who may start', () => {
  it.each([
    ['U0REQ', true],
    ['U0PLAT', true], // through user group S0PLATFORM
    ['U0APP', false],
    ['U0ONCALL', false],
  ])('%s → %s', async (user, allowed) => {
    expect((await authorizeStart(deps, demo, user)).allowed).toBe(allowed);
  });

  it('names the requesters when refusing', async () => {
    const decision = await authorizeStart(deps, demo, 'U0STRANGER');
    expect(decision).toEqual({ allowed: false, reason: expect.stringContaining('Requesters: <@U0REQ>, <!subteam^S0PLATFORM>') });
  });
});

describe('who may answer gates', () => {
  it.each([
    ['U0APP', 'continue', true],
    ['U0ONCALL', 'continue', true], // through user group S0ONCALL
    ['U0ONCALL', 'force', true],
    ['U0PLAT', 'continue', false],
    ['U0STRANGER', 'remedy', false],
    ['U0REQ', 'continue', true], // requester who is also an approver, no two-person rule
  ] as const)('demo: %s %s → %s', async (user, action, allowed) => {
    expect((await authorizeGate(deps, demo, job, user, action)).allowed).toBe(allowed);
  });

  it('two-person rule: the requester may not approve, force or remedy their own upgrade', async () => {
    for (const action of ['continue', 'force', 'remedy'] as const) {
      const decision = await authorizeGate(deps, strict, job, 'U0REQ', action);
      expect(decision.allowed).toBe(false);
      expect(!decision.allowed && decision.reason).toMatch(/two-person rule.*another approver.*<@U0APP>/);
    }
    expect((await authorizeGate(deps, strict, job, 'U0APP', 'continue')).allowed).toBe(true);
  });

  it('two-person rule still lets the requester abort (stopping is always safe)', async () => {
    expect((await authorizeGate(deps, strict, job, 'U0REQ', 'abort')).allowed).toBe(true);
  });

  it('an unreadable user group grants nothing instead of failing the click', async () => {
    const withBroken = { ...demo, approvers: ['S0BROKEN'] };
    expect((await authorizeGate(deps, withBroken, job, 'U0APP', 'continue')).allowed).toBe(false);
  });
});

describe('who may pause, resume, abort', () => {
  it.each([
    ['U0APP', 'pause', true],
    ['U0ONCALL', 'resume', true],
    ['U0PLAT', 'pause', false],
    ['U0PLAT', 'abort', false],
  ] as const)('%s %s → %s', async (user, action, allowed) => {
    expect((await authorizeJobControl(deps, demo, job, user, action)).allowed).toBe(allowed);
  });

  it('the requester of the job may pause and abort it but not resume it unless an approver', async () => {
    const onlyApp = { ...demo, approvers: ['U0APP'] };
    const own = { requestedBy: 'U0PLAT' };
    expect((await authorizeJobControl(deps, onlyApp, own, 'U0PLAT', 'pause')).allowed).toBe(true);
    expect((await authorizeJobControl(deps, onlyApp, own, 'U0PLAT', 'abort')).allowed).toBe(true);
    const resume = await authorizeJobControl(deps, onlyApp, own, 'U0PLAT', 'resume');
    expect(resume).toEqual({ allowed: false, reason: 'Only the approvers of demo may resume its upgrade: <@U0APP>.' });
  });
});

describe('usergroup resolver', () => {
  function fakeClient(answers: Array<string[] | Error>) {
    const calls: string[] = [];
    const client = {
      usergroups: {
        users: {
          list: async ({ usergroup }: { usergroup: string }) => {
            calls.push(usergroup);
            const next = answers.shift();
            if (next instanceof Error) throw Object.assign(next, { data: { error: next.message } });
            await new Promise((resolve) => setTimeout(resolve, 5));
            return { ok: true, users: next ?? [] };
          },
        },
      },
    } as unknown as WebClient;
    return { client, calls };
  }

  it('caches for the TTL, shares concurrent look-ups, then asks Slack again', async () => {
    const clock = createManualClock();
    const { client, calls } = fakeClient([['U1'], ['U1', 'U2']]);
    const resolver = createUsergroupResolver(client, clock, 60_000);
    const [a, b] = await Promise.all([resolver.members('S1'), resolver.members('S1')]);
    expect([a, b]).toEqual([['U1'], ['U1']]);
    await clock.advance(59_000);
    expect(await resolver.members('S1')).toEqual(['U1']);
    expect(calls).toEqual(['S1']);
    await clock.advance(2_000);
    expect(await resolver.members('S1')).toEqual(['U1', 'U2']);
    expect(calls).toEqual(['S1', 'S1']);
  });

  it('keeps using expired members while Slack fails, and explains a failure with nothing cached', async () => {
    const clock = createManualClock();
    const { client } = fakeClient([['U1'], new Error('ratelimited'), new Error('missing_scope')]);
    const resolver = createUsergroupResolver(client, clock, 1_000);
    await resolver.members('S1');
    await clock.advance(5_000);
    expect(await resolver.members('S1')).toEqual(['U1']);
    await expect(resolver.members('S2')).rejects.toThrow(/S2 failed: missing_scope.*usergroups:read/);
  });
});
