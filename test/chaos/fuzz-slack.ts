import fc from 'fast-check';
import type { SlackHarness } from '../support/slack-app-harness.js';

/**
 * Property-based fuzzing of the Slack surface through the real Bolt app: generated slash-command texts and
 * generated interaction payloads (validly signed, arbitrary content). Seeded, so a run is reproducible from the
 * seed it prints. Used by the short variant in `npm test` (test/integration/fuzz-slack.test.ts) and by
 * `npm run chaos` at 10,000 of each.
 */
export interface FuzzFigures {
  runs: number;
  /** Requests the bot did not answer 200 (or, for junk interactions, a 4xx) — Slack would show an error. */
  halted: number;
  /** Acks slower than Slack's 3 s. */
  over3s: number;
  maxAckMs: number;
  /** Slash commands without exactly one answer, or whose answer echoed mrkdwn markup unescaped. */
  wrongAnswers: string[];
}

const USERS = ['U0REQ', 'U0APP', 'U0ONCALL', 'U0OUT'];
const CHANNELS = ['C0DEMO', 'C0PROD', 'C0ELSE'];
const SUBCOMMANDS = ['help', 'status', 'plan', 'start', 'jobs', 'pause', 'resume', 'abort', 'audit', 'rollback', ''];
const MARKUP = ['<!channel>', '<!here>', '<!everyone>', '<@U0BOSS>', '<#C0OTHER|secret>', '<https://example.invalid|click>', '*bold*', '`tick`', '&amp;', '<!subteam^S0X>'];
/** Markup Slack would act on if the bot echoed it raw: a mention, a broadcast, a link. */
const LIVE_MARKUP = /<!(channel|here|everyone|subteam\^S0X)>|<@U0BOSS>|<#C0OTHER\|secret>|<https:\/\/example\.invalid\|click>/;

const word = fc.oneof(
  fc.constantFrom('demo', 'prod', 'ghost', '--to', '1.31', '1.30', '2.0', '--dry-run', '--all', '--limit', 'latest', '-h', '--help', '""', "'"),
  fc.constantFrom(...MARKUP),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

export const slashText = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...SUBCOMMANDS), fc.array(word, { maxLength: 6 })).map(([sub, words]) => [sub, ...words].join(' ')) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('status ', 'plan ', 'start '), fc.string({ minLength: 2000, maxLength: 4000 })).map(([a, b]) => a + b) },
);

export async function fuzzSlashCommands(harness: SlackHarness, opts: { runs: number; seed: number }): Promise<FuzzFigures> {
  const samples = fc.sample(fc.tuple(slashText, fc.constantFrom(...USERS), fc.constantFrom(...CHANNELS)), { numRuns: opts.runs, seed: opts.seed });
  const figures: FuzzFigures = { runs: samples.length, halted: 0, over3s: 0, maxAckMs: 0, wrongAnswers: [] };
  let answered = harness.fake.ephemerals().length;
  for (const [text, userId, channelId] of samples) {
    const result = await harness.fake.sendSlashCommand({ text, userId, channelId });
    figures.maxAckMs = Math.max(figures.maxAckMs, result.ackMs);
    if (result.ackMs > 3_000) figures.over3s++;
    if (result.status !== 200) {
      figures.halted++;
      continue;
    }
    // Each command gets exactly one answer; wait for it (the fake wakes on every record, no polling).
    const replies = await harness.fake
      .waitFor((fake) => fake.ephemerals().length > answered && fake.ephemerals().slice(answered), { timeoutMs: 10_000 })
      .catch(() => undefined);
    if (!replies) {
      figures.wrongAnswers.push(`no answer to ${JSON.stringify(text.slice(0, 80))}`);
      continue;
    }
    answered += replies.length;
    const reply = replies[0];
    if (reply.source === 'slack') figures.wrongAnswers.push(`Slack error for ${JSON.stringify(text.slice(0, 80))}: ${reply.text}`);
    const shown = `${reply.text}\n${JSON.stringify(reply.blocks ?? [])}`;
    if (LIVE_MARKUP.test(shown)) figures.wrongAnswers.push(`unescaped markup echoed for ${JSON.stringify(text.slice(0, 80))}: ${reply.text.slice(0, 200)}`);
  }
  return figures;
}

const ACTION_IDS = ['gate:continue', 'gate:abort', 'gate:remedy', 'gate:force', 'job:pause', 'job:resume', 'job:abort', 'job:timeline', 'legacy:approve', 'waiver:approve'];

function interactionPayload(fakeUrl: string, jobIds: string[]) {
  const jobRef = fc.record({
    jobId: fc.oneof(fc.constantFrom(...jobIds), fc.string({ maxLength: 20 })),
    gateId: fc.oneof(fc.constant('h1-control-plane'), fc.string({ maxLength: 20 })),
    revision: fc.oneof(fc.integer({ min: -2, max: 4 }), fc.constant(Number.MAX_SAFE_INTEGER)),
  });
  const value = fc.oneof(
    jobRef.map((ref) => JSON.stringify(ref)),
    fc.constantFrom(...jobIds).map((jobId) => JSON.stringify({ jobId })),
    fc.string({ maxLength: 50 }),
    fc.string({ minLength: 3000, maxLength: 6000 }),
    fc.constant('{"jobId": null}'),
  );
  const user = fc.record({ id: fc.oneof(fc.constantFrom(...USERS), fc.string({ maxLength: 12 })), name: fc.string({ maxLength: 10 }) });
  const channel = fc.record({ id: fc.oneof(fc.constantFrom(...CHANNELS), fc.string({ maxLength: 12 })), name: fc.string({ maxLength: 10 }) });
  const blockActions = fc.record({
    type: fc.constant('block_actions'),
    user,
    channel: fc.option(channel, { nil: undefined }),
    container: fc.record({ type: fc.constant('message'), message_ts: fc.constant('1700000000.000100'), channel_id: fc.constantFrom(...CHANNELS) }),
    message: fc.option(fc.record({ ts: fc.constant('1700000000.000100'), thread_ts: fc.option(fc.constant('1700000000.000001'), { nil: undefined }), text: fc.string({ maxLength: 30 }) }), { nil: undefined }),
    trigger_id: fc.string({ maxLength: 12 }),
    response_url: fc.oneof(fc.constant(`${fakeUrl}/response/fuzz`), fc.string({ maxLength: 20 })),
    team: fc.constant({ id: 'T0FAKE', domain: 'fake' }),
    api_app_id: fc.constant('A0FAKEAPP'),
    token: fc.constant('legacy-verification-token'),
    actions: fc.array(
      fc.record({ type: fc.constantFrom('button', 'static_select', 'nonsense'), action_id: fc.oneof(fc.constantFrom(...ACTION_IDS), fc.string({ maxLength: 30 })), block_id: fc.string({ maxLength: 10 }), value, action_ts: fc.constant('1700000000.1') }),
      { minLength: 0, maxLength: 2 },
    ),
  });
  const viewSubmission = fc.record({
    type: fc.constant('view_submission'),
    user,
    team: fc.constant({ id: 'T0FAKE', domain: 'fake' }),
    api_app_id: fc.constant('A0FAKEAPP'),
    trigger_id: fc.string({ maxLength: 12 }),
    view: fc.record({
      id: fc.string({ maxLength: 10 }),
      callback_id: fc.oneof(fc.constantFrom('force-reason', 'waiver-request'), fc.string({ maxLength: 20 })),
      private_metadata: fc.oneof(jobRef.map((ref) => JSON.stringify({ ...ref, channel: 'C0DEMO' })), fc.string({ maxLength: 40 })),
      state: fc.record({ values: fc.dictionary(fc.string({ maxLength: 8 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.record({ type: fc.constant('plain_text_input'), value: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...MARKUP)) }))) }),
    }),
  });
  const junk = fc.oneof(
    fc.record({ type: fc.string({ maxLength: 20 }), user: fc.option(user, { nil: undefined }) }),
    fc.jsonValue({ maxDepth: 3 }),
  );
  return fc.oneof({ weight: 5, arbitrary: blockActions }, { weight: 3, arbitrary: viewSubmission }, { weight: 2, arbitrary: junk });
}

export async function fuzzInteractions(harness: SlackHarness, opts: { runs: number; seed: number; jobIds: string[] }): Promise<FuzzFigures> {
  const samples = fc.sample(interactionPayload(harness.fake.url, opts.jobIds), { numRuns: opts.runs, seed: opts.seed });
  const figures: FuzzFigures = { runs: samples.length, halted: 0, over3s: 0, maxAckMs: 0, wrongAnswers: [] };
  for (const payload of samples) {
    const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const result = await harness.fake.sendRaw({ body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...harness.fake.signRequest(body) } });
    figures.maxAckMs = Math.max(figures.maxAckMs, result.ackMs);
    if (result.ackMs > 3_000) figures.over3s++;
    // 200 is an answer; so is a 4xx for a payload Slack would never send (it shows the user nothing broken).
    if (result.status !== 200 && !(result.status >= 400 && result.status < 500)) {
      figures.halted++;
      if (figures.wrongAnswers.length < 5) figures.wrongAnswers.push(`HTTP ${result.status} after ${result.ackMs} ms for ${JSON.stringify(payload).slice(0, 200)}`);
    }
  }
  return figures;
}
