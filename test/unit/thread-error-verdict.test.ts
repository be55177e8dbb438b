import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/domain/backoff.js';
import { mayHaveTakenEffect, slackErrorVerdict } from '../../src/slack/thread/slack-error-verdict.js';

const policy = { baseMs: 1000, maxMs: 60_000 };

// The errors @slack/web-api throws, built with its own classes.
const platformError = (error: string) => new WebAPIPlatformError({ ok: false, error });
const httpError = (status: number) => new WebAPIHTTPError(status, 'status', {});

describe('slackErrorVerdict', () => {
  it('honours Retry-After of a 429 exactly, whatever came before, and does not count it towards the backoff', () => {
    expect(slackErrorVerdict(new WebAPIRateLimitedError(7), 0, policy)).toMatchObject({ action: 'retry', afterMs: 7000, backoff: false });
    expect(slackErrorVerdict(new WebAPIRateLimitedError(7), 5, policy)).toMatchObject({ action: 'retry', afterMs: 7000, backoff: false });
    expect(slackErrorVerdict(httpError(503), 0, policy)).toMatchObject({ backoff: true });
  });

  it('backs off exponentially on 5xx and network errors, capped', () => {
    const http500 = httpError(500);
    const network = new WebAPIRequestError(new Error('socket hang up'));
    expect(slackErrorVerdict(http500, 0, policy)).toMatchObject({ action: 'retry', afterMs: 1000 });
    expect(slackErrorVerdict(http500, 3, policy)).toMatchObject({ action: 'retry', afterMs: 8000 });
    expect(slackErrorVerdict(network, 30, policy)).toMatchObject({ action: 'retry', afterMs: 60_000 });
    expect(backoffMs(100, policy)).toBe(60_000);
  });

  it('retries Slack-side transient platform errors, and configuration errors slowly rather than dropping the timeline', () => {
    expect(slackErrorVerdict(platformError('internal_error'), 0, policy)).toMatchObject({ action: 'retry', afterMs: 1000 });
    expect(slackErrorVerdict(platformError('not_in_channel'), 0, policy)).toMatchObject({
      action: 'retry',
      afterMs: 5000,
      configuration: true,
    });
  });

  it('falls back to plain text on refused blocks, to a new post when the card is gone, and drops the rest', () => {
    expect(slackErrorVerdict(platformError('invalid_blocks'), 0, policy).action).toBe('plain-text');
    expect(slackErrorVerdict(platformError('message_not_found'), 0, policy).action).toBe('message-gone');
    expect(slackErrorVerdict(platformError('thread_not_found'), 0, policy).action).toBe('drop');
    expect(slackErrorVerdict(httpError(404), 0, policy).action).toBe('drop');
  });

  it('tells a lost answer (the post may be in Slack) from a refusal (Slack did nothing)', () => {
    expect(mayHaveTakenEffect(httpError(500))).toBe(true);
    expect(mayHaveTakenEffect(httpError(504))).toBe(true);
    expect(mayHaveTakenEffect(new WebAPIRequestError(new Error('socket hang up')))).toBe(true);
    expect(mayHaveTakenEffect(platformError('fatal_error'))).toBe(true);
    expect(mayHaveTakenEffect(new Error('Redis went away while recording the post'))).toBe(true);
    expect(mayHaveTakenEffect(new WebAPIRateLimitedError(1))).toBe(false);
    expect(mayHaveTakenEffect(platformError('invalid_blocks'))).toBe(false);
    expect(mayHaveTakenEffect(platformError('not_in_channel'))).toBe(false);
    expect(mayHaveTakenEffect(httpError(404))).toBe(false);
  });

  it('gives up on errors it does not know after a few attempts, so one entry cannot hold a channel forever', () => {
    expect(slackErrorVerdict(new Error('Failed to upload file'), 0, policy).action).toBe('retry');
    expect(slackErrorVerdict(new Error('Failed to upload file'), 8, policy).action).toBe('drop');
  });
});
