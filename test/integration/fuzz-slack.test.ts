import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzInteractions, fuzzSlashCommands } from '../chaos/fuzz-slack.js';
import { startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

/**
 * The short variant of the chaos suite's fuzzing (npm run chaos runs 10,000 of each): generated slash commands and
 * signed interaction payloads with arbitrary content never crash the bot, each command gets exactly one answer
 * with user markup escaped, and every interaction is answered (200, or 4xx for what Slack would never send).
 * Outcomes only; ack times are figures of npm run chaos.
 */
const SEED = 20261130;
let harness: SlackHarness;
let jobIds: string[];

beforeAll(async () => {
  harness = await startSlackHarness();
  const parent = await harness.slack.client.chat.postMessage({ channel: 'C0DEMO', text: 'Upgrade of demo' });
  const job = harness.control.seed({ cluster: 'demo', requestedBy: 'U0REQ', thread: { channel: 'C0DEMO', ts: parent.ts! } });
  harness.control.openGate(job.jobId, 'h1-control-plane', 1);
  jobIds = [job.jobId];
});
afterAll(async () => harness.close());

describe('fuzzing the Slack surface (short)', () => {
  it('slash commands: one answer each, markup never echoed live', async () => {
    const figures = await fuzzSlashCommands(harness, { runs: 150, seed: SEED });
    expect(figures.wrongAnswers).toEqual([]);
    expect(figures.halted).toBe(0);
  });

  it('interaction payloads: every one answered, and the bot still answers afterwards', async () => {
    const figures = await fuzzInteractions(harness, { runs: 300, seed: SEED, jobIds });
    expect(figures.wrongAnswers).toEqual([]);
    expect(figures.halted).toBe(0);
    const before = harness.fake.ephemerals('U0REQ').length;
    await harness.fake.sendSlashCommand({ text: 'help', userId: 'U0REQ', channelId: 'C0DEMO' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length > before);
  });
});
