import { verifySlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { computeSlackSignature, signSlackRequest } from '../../../src/sim/slack/sign-slack-request.js';

// Slack's published example (shared/reference/slack.md, "Verifying requests from Slack").
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TIMESTAMP = 1531420618;
const BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar'
  + '&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com'
  + '%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN'
  + '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';

describe('fake Slack request signing', () => {
  it('reproduces Slack\'s published example signature', () => {
    expect(computeSlackSignature(SECRET, TIMESTAMP, BODY)).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });

  it('produces the two headers Slack sends, accepted by Bolt\'s own verifier', () => {
    const headers = signSlackRequest(SECRET, BODY, TIMESTAMP);
    expect(headers['x-slack-request-timestamp']).toBe(String(TIMESTAMP));
    expect(() =>
      verifySlackRequest({
        signingSecret: SECRET,
        body: BODY,
        headers: {
          'x-slack-signature': headers['x-slack-signature'],
          'x-slack-request-timestamp': TIMESTAMP,
        },
        nowMilliseconds: TIMESTAMP * 1000 + 60_000,
      }),
    ).not.toThrow();
  });

  it('signs with the current time by default, so a fresh request is not stale', () => {
    const headers = signSlackRequest(SECRET, 'a=b');
    expect(Math.abs(Number(headers['x-slack-request-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('changes the signature when the body, timestamp or secret changes', () => {
    const base = computeSlackSignature(SECRET, TIMESTAMP, BODY);
    expect(computeSlackSignature(SECRET, TIMESTAMP, `${BODY}x`)).not.toBe(base);
    expect(computeSlackSignature(SECRET, TIMESTAMP + 1, BODY)).not.toBe(base);
    expect(computeSlackSignature(`${SECRET}x`, TIMESTAMP, BODY)).not.toBe(base);
  });
});
