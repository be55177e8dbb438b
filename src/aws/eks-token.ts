/**
 * Bearer tokens for the Kubernetes API of an EKS cluster, the same ones `aws eks get-token` prints:
 * `k8s-aws-v1.` + base64url (no padding) of an STS GetCallerIdentity URL presigned with SigV4, with the signed
 * header `x-k8s-aws-id: <cluster>`. The apiserver's authenticator replays the URL against STS to learn who we are.
 *
 * STS ignores X-Amz-Expires for this purpose: EKS accepts the token for 15 minutes from X-Amz-Date. We reuse a
 * token for 14 minutes (the CLI reports the same expiry) so a request never carries one about to lapse.
 */

import { Sha256 } from '@smithy/core/checksum';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { systemClock, type Clock } from '../ports/clock.js';

export interface EksTokenSource {
  token(): Promise<string>;
}

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
export const EKS_TOKEN_REUSE_MS = 14 * 60 * 1000;
const PRESIGN_EXPIRES_SECONDS = 60;

export function createEksTokenSource(opts: {
  clusterName: string;
  region: string;
  /** Default: the SDK's default chain (env, profile, SSO, web identity, container, instance role). */
  credentials?: AwsCredentialIdentityProvider;
  /** The wall clock (default the system's): the token's X-Amz-Date must be real time. */
  clock?: Clock;
  /** How long one token is reused (default EKS_TOKEN_REUSE_MS); shorter in tests with a short-lived simulator token. */
  reuseMs?: number;
}): EksTokenSource {
  const clock = opts.clock ?? systemClock;
  const reuseMs = opts.reuseMs ?? EKS_TOKEN_REUSE_MS;
  const signer = new SignatureV4({
    service: 'sts',
    region: opts.region,
    credentials: opts.credentials ?? fromNodeProviderChain(),
    sha256: Sha256,
  });
  let cached: { token: string; signedAt: number } | undefined;
  // Concurrent requests at expiry share one signing (and one credentials refresh) instead of racing.
  let pending: Promise<string> | undefined;

  async function mint(): Promise<string> {
    const signedAt = clock.now();
    // China regions live in their own partition and DNS suffix.
    const hostname = `sts.${opts.region}.amazonaws.com${opts.region.startsWith('cn-') ? '.cn' : ''}`;
    let presigned;
    try {
      presigned = await signer.presign(
        {
          method: 'GET',
          protocol: 'https:',
          hostname,
          path: '/',
          query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
          headers: { host: hostname, 'x-k8s-aws-id': opts.clusterName },
        },
        { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: new Date(signedAt) },
      );
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw Object.assign(
        new Error(
          `creating a Kubernetes token for cluster ${opts.clusterName} failed: no usable AWS credentials (${why}); ` +
            'set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or an instance/pod role',
          { cause: error },
        ),
        { name: 'EksTokenError' },
      );
    }
    const token = EKS_TOKEN_PREFIX + Buffer.from(presignedUrl(hostname, presigned.query ?? {})).toString('base64url');
    cached = { token, signedAt };
    return token;
  }

  return {
    async token() {
      if (cached && clock.now() - cached.signedAt < reuseMs) return cached.token;
      pending ??= mint().finally(() => {
        pending = undefined;
      });
      return pending;
    },
  };
}

/**
 * Parameters in the order `aws eks get-token` writes them, so for the same credentials and time both produce the
 * very same token (handy when comparing the two while debugging an Unauthorized).
 */
const CLI_PARAMETER_ORDER = [
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Security-Token',
];

function presignedUrl(hostname: string, query: Record<string, string | string[] | null | undefined>): string {
  const rank = (key: string) => {
    if (key === 'X-Amz-Signature') return Number.MAX_SAFE_INTEGER;
    const index = CLI_PARAMETER_ORDER.indexOf(key);
    return index >= 0 ? index : CLI_PARAMETER_ORDER.length;
  };
  const keys = Object.keys(query).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const pairs = keys.flatMap((key) => {
    const value = query[key];
    const values = Array.isArray(value) ? value : value == null ? [] : [value];
    return values.map((v) => `${encodeRfc3986(key)}=${encodeRfc3986(v)}`);
  });
  return `https://${hostname}/?${pairs.join('&')}`;
}

// SigV4 canonical encoding is RFC 3986; encodeURIComponent leaves !'()* alone, so escape those too.
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
