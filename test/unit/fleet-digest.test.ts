import { describe, expect, it } from 'vitest';
import { parseClustersYaml } from '../../src/config/clusters-config.js';
import { clockRepeatStrategy } from '../../jobs/worker/clock-repeat-strategy.js';
import {
  EXTENDED_SUPPORT_PER_MONTH,
  EXTENDED_SURCHARGE_PER_MONTH,
  reminderThreshold,
  renderDigestText,
  sortByUrgency,
  type DigestRow,
} from '../../src/report/digest.js';
import { renderDigestMessage, renderReminder } from '../../src/report/blocks/render-digest-blocks.js';
import { checkMessageBlocks } from '@eks-upgrade-bot/sim';
import { parseCommand } from '../../commands/routing/parse-command.js';
import { clustersYamlErrorOf } from '../support/clusters-yaml-error.js';

const base = `
defaults: { region: us-west-2, requesters: [U0REQ], approvers: [U0APP] }
clusters:
  - { name: dev-001, channels: [C0DEV] }
  - { name: prod-001, channels: [C0OPS] }
  - { name: prod-002, channels: [C0OPS], reminders: { daysBefore: [14, 90] } }
`;

const errorOf = clustersYamlErrorOf;

describe('clusters.yaml digests: and reminders:', () => {
  it('resolves globs, defaults clusters to those listing the channel, and defaults reminders to 60, 30, 7', () => {
    const config = parseClustersYaml(`${base}digests:
  - { channel: C0OPS, schedule: "0 9 * * MON", timezone: Europe/Berlin }
  - { channel: C0ALL, schedule: "30 8 * * *", clusters: ["prod-*", "dev-00?"] }
`);
    expect(config.digests).toEqual([
      { channel: 'C0OPS', schedule: '0 9 * * MON', timezone: 'Europe/Berlin', clusters: ['prod-001', 'prod-002'] },
      { channel: 'C0ALL', schedule: '30 8 * * *', timezone: 'UTC', clusters: ['dev-001', 'prod-001', 'prod-002'] },
    ]);
    expect(config.clusters.map((c) => c.reminders?.daysBefore)).toEqual([[60, 30, 7], [60, 30, 7], [90, 14]]);
  });

  it('refuses a bad schedule, time zone, glob or channel with a sentence naming the field', () => {
    expect(errorOf(`${base}digests: [{ channel: C0OPS, schedule: "every monday" }]`)).toMatch(/^clusters.yaml: digests\[0\]\.schedule: must be a cron schedule of 5 fields like "0 9 \* \* MON"/);
    expect(errorOf(`${base}digests: [{ channel: C0OPS, schedule: "0 9 * * MON", timezone: Mars/Olympus }]`)).toMatch(/digests\[0\]\.timezone: must be an IANA time zone like Europe\/Berlin/);
    expect(errorOf(`${base}digests: [{ channel: C0OPS, schedule: "0 9 * * MON", clusters: ["prd-*"] }]`)).toBe('clusters.yaml: digests[0].clusters: "prd-*" matches no cluster in clusters.yaml');
    expect(errorOf(`${base}digests: [{ channel: C0OPS, schedule: "0 9 * * MON", clusters: ["prod/*"] }]`)).toMatch(/digests\[0\]\.clusters\[0\]: must be a cluster name or a glob like "prod-\*"/);
    expect(errorOf(`${base}digests: [{ channel: C0NOBODY, schedule: "0 9 * * MON" }]`)).toMatch(/digests\[0\] \(C0NOBODY\): no cluster lists this channel/);
    expect(errorOf(`${base.replace('[14, 90]', '[0]')}`)).toMatch(/\(prod-002\)\.reminders\.daysBefore\[0\]: must be whole days of at least 1/);
  });
});

const NOW = Date.parse('2025-10-15T07:00:00Z');
const rows: DigestRow[] = [
  { cluster: 'prod-003', region: 'us-west-2', version: '1.33', phase: 'standard', endOfStandardSupport: '2026-07-29', standardDaysLeft: 288, extendedCostPerMonth: EXTENDED_SUPPORT_PER_MONTH, nextMinor: '1.34', blocking: 0, oldestKubelet: { version: 'v1.33', behind: 0 } },
  { cluster: 'dev-001', region: 'us-east-1', version: '1.30', phase: 'extended', endOfStandardSupport: '2025-07-23', standardDaysLeft: -84, extendedCostPerMonth: EXTENDED_SUPPORT_PER_MONTH, nextMinor: '1.31', blocking: 2, oldestKubelet: { version: 'v1.28', behind: 2 } },
  { cluster: 'staging-002', region: 'eu-west-1', version: '1.31', phase: 'standard', upgradePolicy: 'STANDARD', endOfStandardSupport: '2025-11-26', standardDaysLeft: 42, nextMinor: '1.32', blocking: 1, job: { jobId: 'u1', state: 'running', to: '1.32', threadUrl: 'https://slack.com/archives/C0/p1' } },
  { cluster: 'dev-010', region: 'us-west-2', error: 'Kubernetes API did not answer' },
];

describe('digest rendering', () => {
  it('prices extended support at $0.60 per cluster-hour over 730 hours', () => {
    expect(EXTENDED_SUPPORT_PER_MONTH).toBe(438);
    expect(EXTENDED_SURCHARGE_PER_MONTH).toBe(365);
  });

  it('sorts by urgency: support already ended first, then fewest days left; unreadable clusters last', () => {
    expect(sortByUrgency(rows).map((row) => row.cluster)).toEqual(['dev-001', 'staging-002', 'prod-003', 'dev-010']);
  });

  it('renders one valid Slack message: a row per cluster with its figures and a Plan button', () => {
    const message = renderDigestMessage(rows, { at: NOW, timezone: 'Europe/Berlin', trigger: 'Scheduled `0 9 * * MON` (Europe/Berlin)' });
    expect(checkMessageBlocks(message.blocks ?? [])).toEqual([]);
    const sections = (message.blocks ?? []).filter((b) => b.type === 'section') as Array<{ text: { text: string }; accessory?: { action_id: string; value: string } }>;
    expect(sections.map((s) => s.accessory?.value)).toEqual(['dev-001', 'staging-002', 'prod-003', undefined]);
    expect(sections[0].accessory?.action_id).toBe('fleet:plan');
    expect(sections[0].text.text).toContain('*dev-001* 1.30 · standard support ends 2025-07-23 (ended 84 days ago) · extended support $438/mo now · 2 blocking for 1.31 · oldest kubelet v1.28 (2 behind)');
    expect(sections[1].text.text).toContain('(42 days left) · extended support none (auto-upgrade) · 1 blocking for 1.32');
    expect(sections[1].text.text).toContain('<https://slack.com/archives/C0/p1|running → 1.32>');
    expect(sections[2].text.text).toContain('$438/mo if it lapses');
    expect(sections[3].text.text).toContain('could not be read: Kubernetes API did not answer');
    expect(message.text).toMatch(/^Fleet digest · 4 clusters · Wed, 15 Oct 2025, 09:00 Europe\/Berlin/);
  });

  it('says how many clusters did not fit into one message', () => {
    const many = Array.from({ length: 60 }, (_, i): DigestRow => ({ ...rows[0], cluster: `prod-${String(i).padStart(3, '0')}` }));
    const message = renderDigestMessage(many, { at: NOW, timezone: 'UTC', trigger: 'On demand' });
    expect(message.blocks!.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(message.blocks)).toContain('… 13 more clusters');
    expect(checkMessageBlocks(message.blocks ?? [])).toEqual([]);
  });

  it('prints an aligned table for the terminal', () => {
    const lines = renderDigestText(rows, NOW).split('\n');
    expect(lines[1]).toMatch(/^CLUSTER\s+VERSION\s+STANDARD ENDS\s+DAYS LEFT/);
    // A support window that has ended reads as the docs say, not as a negative count (issue 25).
    expect(lines[2]).toMatch(/^dev-001\s+1\.30\s+2025-07-23\s+ended 84 days ago\s+\$438\/mo now/);
    expect(lines.join('\n')).not.toMatch(/\s-\d+\s/);
  });
});

describe('reminders', () => {
  it('is due at the smallest configured threshold reached, not after support ended, not while a job runs', () => {
    const at = (days: number, extra: Partial<DigestRow> = {}): DigestRow => ({ ...rows[0], standardDaysLeft: days, ...extra });
    expect(reminderThreshold(at(61), [60, 30, 7])).toBeUndefined();
    expect(reminderThreshold(at(60), [60, 30, 7])).toBe(60);
    expect(reminderThreshold(at(20), [60, 30, 7])).toBe(30);
    expect(reminderThreshold(at(0), [60, 30, 7])).toBe(7);
    expect(reminderThreshold(at(-1), [60, 30, 7])).toBeUndefined();
    expect(reminderThreshold(at(5, { job: rows[2].job }), [60, 30, 7])).toBeUndefined();
  });

  it('carries the plan summary and a Start button for the next minor', () => {
    const message = renderReminder({ ...rows[0], standardDaysLeft: 28, blocking: 1, planSteps: 9, planMinutes: 95 }, 30, NOW);
    expect(message.text).toBe('prod-003 (1.33): standard support ends 2026-07-29, in 28 days; it then moves to extended support at $438 a month. Plan for 1.34: 1 blocking finding, 9 steps, ~1 h 35 min. (Reminder at 30 days.)');
    expect(JSON.stringify(message.blocks)).toContain('"action_id":"fleet:start","value":"{\\"cluster\\":\\"prod-003\\",\\"to\\":\\"1.34\\"}"');
    expect(checkMessageBlocks(message.blocks ?? [])).toEqual([]);
  });
});

describe('clockRepeatStrategy (BullMQ scheduler ↔ the bot Clock)', () => {
  it('is BullMQ cron scheduling on the system clock', () => {
    const next = clockRepeatStrategy({ now: () => Date.now(), sleep: async () => undefined })(Date.parse('2026-12-07T07:59:00Z'), { pattern: '0 9 * * MON', tz: 'Europe/Berlin' });
    expect(next).toBe(Date.parse('2026-12-07T08:00:00Z'));
  });

  it('finds the tick on a fast simulated calendar and returns when wall time will reach it', () => {
    const simNow = Date.parse('2026-12-07T07:59:00Z'); // Monday 08:59 in Berlin
    const clock = { now: () => simNow, sleep: async () => undefined, speed: 600 };
    const before = Date.now();
    const next = clockRepeatStrategy(clock)(before, { pattern: '0 9 * * MON', tz: 'Europe/Berlin' })!;
    // 60 simulated seconds at speed 600 are 100 real ms.
    expect(next - before).toBeGreaterThanOrEqual(95);
    expect(next - before).toBeLessThan(150);
  });

  it('never gives the tick just taken again, even when the clocks are sampled a little apart', () => {
    const tick = Date.parse('2026-12-07T08:00:00Z');
    const clock = { now: () => tick - 300, sleep: async () => undefined, speed: 600 }; // 0.5 real ms "early"
    const next = clockRepeatStrategy(clock)(Date.now(), { pattern: '0 9 * * MON', tz: 'Europe/Berlin' })!;
    expect(next - Date.now()).toBeGreaterThan(600_000); // a week of simulated time later: ~1008 real seconds
  });
});

describe('/eks-upgrade digest grammar', () => {
  it('takes no argument and says so', () => {
    expect(parseCommand('digest')).toMatchObject({ ok: true, command: { subcommand: 'digest' } });
    expect(parseCommand('digest prod-*')).toEqual({ ok: false, subcommand: 'digest', problem: 'Unexpected `prod-*`: `digest` takes no argument.' });
    expect(parseCommand('digest --to 1.31')).toMatchObject({ ok: false, problem: '`--to` does not apply to `digest`.' });
  });
});

describe('/eks-upgrade rollout grammar', () => {
  it('reads one wave per --waves argument, the soak and the parallelism', () => {
    expect(parseCommand("rollout --to 1.31 --waves 'dev-*' 'staging-*,qa-*' 'prod-*' --soak 24h --max-parallel 3")).toMatchObject({
      ok: true,
      command: { subcommand: 'rollout', to: '1.31', waves: ['dev-*', 'staging-* qa-*', 'prod-*'], soak: '24h', maxParallel: '3' },
    });
    expect(parseCommand('rollout pause r1a2b3c4')).toMatchObject({ ok: true, command: { subcommand: 'rollout', target: 'pause', rolloutId: 'r1a2b3c4' } });
  });

  it('refuses what it cannot run with a sentence', () => {
    const problem = (text: string) => (parseCommand(text) as { problem: string }).problem;
    expect(problem("rollout --waves 'dev-*'")).toMatch(/^`rollout` needs `--to &lt;minor&gt;`/);
    expect(problem('rollout --to 1.31')).toMatch(/^`rollout` needs `--waves`, one argument per wave/);
    expect(problem('rollout --to 1.31 --waves --soak 1h')).toMatch(/^`--waves` needs one argument per wave/);
    expect(problem("rollout --to 1.31 --waves 'dev-*' --soak tomorrow")).toBe('`tomorrow` is not a soak time; give one like `24h`, `90m` or `2d` (at most 30 days).');
    expect(problem("rollout --to 1.31 --waves 'dev-*' --max-parallel 0")).toBe('`0` is not a number of clusters from 1 to 50 for `--max-parallel`.');
    expect(problem('rollout stop r1a2b3c4')).toMatch(/^`stop` is not a rollout action/);
    expect(problem('rollout abort')).toBe("`rollout abort` needs the rollout id (shown in the rollout's thread).");
  });
});
