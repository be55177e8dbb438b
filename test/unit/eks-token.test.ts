import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createEksTokenSource, EKS_TOKEN_PREFIX } from '../../src/aws/eks-token.js';
import type { Clock } from '../../src/ports/clock.js';
import { AWS_CLI, requireTool, skipWithout } from '../support/required-tool.js';

// AWS's documentation example key pair: not a secret.
const ACCESS_KEY_ID = 'AKIDEXAMPLE';
const SECRET_ACCESS_KEY = 'wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY';

function manualClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, sleep: async () => {}, advance: (ms) => void (now += ms) };
}

function decode(token: string): URL {
  expect(token.startsWith(EKS_TOKEN_PREFIX)).toBe(true);
  const payload = token.slice(EKS_TOKEN_PREFIX.length);
  expect(payload).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
  return new URL(Buffer.from(payload, 'base64url').toString('utf8'));
}

function source(clock: Clock, options: { region?: string; sessionToken?: string; onCredentials?: () => void } = {}) {
  return createEksTokenSource({
    clusterName: 'demo',
    region: options.region ?? 'us-west-2',
    credentials: async () => {
      options.onCredentials?.();
      return { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY, sessionToken: options.sessionToken };
    },
    clock,
  });
}

describe('createEksTokenSource', () => {
  it('presigns an STS GetCallerIdentity URL bound to the cluster name', async () => {
    const clock = manualClock(Date.UTC(2026, 10, 29, 18, 23, 28));
    const url = decode(await source(clock).token());

    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('sts.us-west-2.amazonaws.com');
    expect(url.pathname).toBe('/');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('Version')).toBe('2011-06-15');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261129/us-west-2/sts/aws4_request');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261129T182328Z');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(['host', 'x-k8s-aws-id']);
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('produces byte for byte the token `aws eks get-token` printed for the same key and time', async () => {
    // Recorded with: AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=wJalr…KEY
    //   aws eks get-token --cluster-name demo --region us-west-2   (at 2026-11-29T18:23:28Z, aws-cli 1.45)
    const recorded =
      'k8s-aws-v1.aHR0cHM6Ly9zdHMudXMtd2VzdC0yLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1HZXRDYWxsZXJJZGVudGl0eSZWZXJzaW9uPTIwMTEtMDYtMTUmWC1BbXotQWxnb3JpdGhtPUFXUzQtSE1BQy1TSEEyNTYmWC1BbXotQ3JlZGVudGlhbD1BS0lERVhBTVBMRSUyRjIwMjYxMTI5JTJGdXMtd2VzdC0yJTJGc3RzJTJGYXdzNF9yZXF1ZXN0JlgtQW16LURhdGU9MjAyNjExMjlUMTgyMzI4WiZYLUFtei1FeHBpcmVzPTYwJlgtQW16LVNpZ25lZEhlYWRlcnM9aG9zdCUzQngtazhzLWF3cy1pZCZYLUFtei1TaWduYXR1cmU9NWU2Yzc4YjM2MzE4MmFmNzg3ZGM0NGRjODM3NDkyYWEwNDZlYTI2Mjc5NDE1ZjI1Y2Y5YzEyYTUyZDJiMTdhYg';
    const clock = manualClock(Date.UTC(2026, 10, 29, 18, 23, 28));
    expect(await source(clock).token()).toBe(recorded);
  });

  // Skipped without the aws CLI on a laptop; under CI=true it fails, naming what to install (test/support/required-tool.ts).
  it.skipIf(skipWithout(AWS_CLI))('matches the installed aws CLI with temporary credentials (session token)', async () => {
    requireTool(AWS_CLI);
    const sessionToken = 'session/token+with=chars';
    const output = execFileSync('aws', ['eks', 'get-token', '--cluster-name', 'demo', '--region', 'eu-central-1'], {
      // Only these credentials: no profile or config file of the machine may change the host or the key.
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        AWS_CONFIG_FILE: '/dev/null',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
        AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
        AWS_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
        AWS_SESSION_TOKEN: sessionToken,
      },
      encoding: 'utf8',
    });
    const cliToken: string = JSON.parse(output).status.token;
    const amzDate = decode(cliToken).searchParams.get('X-Amz-Date')!;
    const [, y, mo, d, h, mi, s] = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(amzDate)!.map(Number);
    const clock = manualClock(Date.UTC(y, mo - 1, d, h, mi, s));

    const ours = await source(clock, { region: 'eu-central-1', sessionToken }).token();
    expect(decode(ours).searchParams.get('X-Amz-Security-Token')).toBe(sessionToken);
    expect(ours).toBe(cliToken);
  });

  it('reuses the token for 14 minutes after its X-Amz-Date, then signs a new one', async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    let credentialReads = 0;
    const tokens = source(clock, { onCredentials: () => credentialReads++ });

    const first = await tokens.token();
    clock.advance(14 * 60_000 - 1000);
    expect(await tokens.token()).toBe(first);
    expect(credentialReads).toBe(1);

    clock.advance(1000);
    const second = await tokens.token();
    expect(second).not.toBe(first);
    expect(decode(second).searchParams.get('X-Amz-Date')).toBe('20260101T121400Z');
    expect(credentialReads).toBe(2);
  });

  it('signs once when many requests ask for a token at the same moment', async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    let credentialReads = 0;
    const tokens = source(clock, { onCredentials: () => credentialReads++ });
    const all = await Promise.all([tokens.token(), tokens.token(), tokens.token()]);
    expect(new Set(all).size).toBe(1);
    expect(credentialReads).toBe(1);
  });

  it('says which cluster needed a token and how to provide credentials when there are none', async () => {
    const tokens = createEksTokenSource({
      clusterName: 'prod-eu',
      region: 'eu-west-1',
      credentials: async () => {
        throw Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
      },
    });
    const error = await tokens.token().catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/cluster prod-eu failed: no usable AWS credentials/);
    expect((error as Error).message).toMatch(/AWS_ACCESS_KEY_ID/);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });
});
