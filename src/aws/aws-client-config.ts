import { fromNodeProviderChain, fromTemporaryCredentials, fromTokenFile } from '@aws-sdk/credential-providers';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, RequestSigner } from '@smithy/types';
import type { Metrics } from '../ports/metrics.js';

/**
 * What every AWS adapter (EKS, SSM, EC2, the Kubernetes token) needs to build an SDK client for one configured
 * cluster: region, the optional role to assume, and overrides used by tests and the demo (endpoint, static
 * credentials, retries). Without an explicit endpoint nothing is set, so the SDK's own resolution applies:
 * AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL, then the public regional endpoint; likewise AWS_MAX_ATTEMPTS and
 * AWS_RETRY_MODE.
 */
export interface AwsAdapterOptions {
  endpoint?: string;
  credentials?: AwsCredentialIdentityProvider | AwsCredentialIdentity;
  maxAttempts?: number;
  retryMode?: string;
  /**
   * The projected service-account token (AWS_WEB_IDENTITY_TOKEN_FILE under IRSA): a cluster's roleArn is then
   * assumed with AssumeRoleWithWebIdentity straight from the pod's identity, instead of AssumeRole on top of the
   * default chain. Only used when no explicit credentials are given.
   */
  webIdentityTokenFile?: string;
  /** Counts every call and failure by service and operation (eks_upgrade_aws_calls_total / _errors_total). */
  metrics?: Metrics;
}

export interface ClusterAwsTarget {
  region: string;
  roleArn?: string;
}

export interface SdkClientConfig {
  region: string;
  endpoint?: string;
  credentials?: AwsCredentialIdentityProvider | AwsCredentialIdentity;
  maxAttempts?: number;
  retryMode?: string;
  /**
   * Resolve each command's middleware stack once per client instead of at every call (the SDK's own option, default
   * off). Nothing here changes a client's middleware after its first call (`instrumented` adds the only one at
   * construction), so every call runs the same stack; bench P2k: `resolveMiddleware` was a tenth of the CLI's CPU.
   */
  cacheMiddleware: true;
  /** Keep-alive sockets per client (the SDK's own default caps them at 50, queueing a fleet's reads behind them). */
  requestHandler: { httpAgent: { keepAlive: true; maxSockets: number }; httpsAgent: { keepAlive: true; maxSockets: number } };
  /**
   * One SigV4 signer for the client's life (the SDK's own option). Without it the SDK builds a new signer for every
   * request from a copy of the whole client configuration; bench P2k: 40 MB of a 1,000-cluster read's garbage. The SDK
   * passes each request's clock-skew-corrected date to `sign`, but not always its service: the signer is made for one.
   */
  signer: RequestSigner;
}

/**
 * Sockets per SDK client (one per region and role): `status --all` over a fleet reads from many clusters of a
 * region at once through the same client. At most STATUS_CONCURRENCY clusters of a region and account are read
 * together, each with a bounded number of calls in flight, so this bounds connections, not work.
 */
export const SDK_MAX_SOCKETS = 256;

/** Session name shown in CloudTrail for every call the bot makes under an assumed role. */
export const ROLE_SESSION_NAME = 'eks-upgrade-bot';

// One AssumeRole provider per (role, region, base credentials): it caches and refreshes the temporary credentials,
// so EKS, SSM, EC2 and the Kubernetes token share one STS session instead of assuming the role four times.
const assumedRoleProviders = new WeakMap<object, Map<string, AwsCredentialIdentityProvider>>();
const DEFAULT_CHAIN_KEY = {};

function assumedRole(target: Required<ClusterAwsTarget>, options: AwsAdapterOptions): AwsCredentialIdentityProvider {
  const owner = (options.credentials as object | undefined) ?? DEFAULT_CHAIN_KEY;
  let byRole = assumedRoleProviders.get(owner);
  if (!byRole) assumedRoleProviders.set(owner, (byRole = new Map()));
  const key = `${target.roleArn}|${target.region}|${options.endpoint ?? ''}`;
  let provider = byRole.get(key);
  if (!provider) {
    const clientConfig = { region: target.region, ...(options.endpoint ? { endpoint: options.endpoint } : {}) };
    provider = sharedSession(
      options.webIdentityTokenFile && !options.credentials
        ? fromTokenFile({ roleArn: target.roleArn, roleSessionName: ROLE_SESSION_NAME, webIdentityTokenFile: options.webIdentityTokenFile, clientConfig })
        : fromTemporaryCredentials({ params: { RoleArn: target.roleArn, RoleSessionName: ROLE_SESSION_NAME }, masterCredentials: options.credentials, clientConfig }),
    );
    byRole.set(key, provider);
  }
  return provider;
}

// Renew a role session this long before it expires, so no request is signed with credentials about to lapse.
const RENEW_BEFORE_MS = 5 * 60_000;

/**
 * The STS providers call STS every time they are asked, and each SDK client asks once: without sharing, EKS, SSM,
 * EC2 and the Kubernetes token would each start their own session. One session per role, renewed near expiry;
 * concurrent first calls wait for the same AssumeRole, and a failed one is retried by the next call.
 */
function sharedSession(provider: AwsCredentialIdentityProvider): AwsCredentialIdentityProvider {
  let session: Promise<AwsCredentialIdentity> | undefined;
  const fresh = (c: AwsCredentialIdentity) => !c.expiration || c.expiration.getTime() - Date.now() > RENEW_BEFORE_MS;
  return async () => {
    for (let attempt = 0; ; attempt++) {
      const current = (session ??= provider().catch((error: unknown) => {
        session = undefined;
        throw error;
      }));
      const credentials = await current;
      if (fresh(credentials) || attempt > 0) return credentials;
      if (session === current) session = undefined;
    }
  };
}

/**
 * The credentials to sign with for a cluster: the assumed role when the cluster names one, else the explicit
 * credentials, else undefined (the SDK's default chain: env, profile, SSO, web identity, container, instance).
 */
export function credentialsFor(target: ClusterAwsTarget, options: AwsAdapterOptions): AwsCredentialIdentityProvider | AwsCredentialIdentity | undefined {
  if (target.roleArn) return assumedRole({ region: target.region, roleArn: target.roleArn }, options);
  return options.credentials;
}

// The default chain caches what it resolved (and refreshes expiring credentials); one for the whole process.
let defaultChain: AwsCredentialIdentityProvider | undefined;

/** Like credentialsFor, but always a provider function (SigV4 presigning outside an SDK client needs one). */
export function credentialProviderFor(target: ClusterAwsTarget, options: AwsAdapterOptions): AwsCredentialIdentityProvider {
  const credentials = credentialsFor(target, options);
  if (credentials === undefined) return (defaultChain ??= fromNodeProviderChain());
  if (typeof credentials === 'function') return credentials;
  return async () => credentials;
}

/** The service name in a SigV4 credential scope, per SDK client (each client's `defaultSigningName`). */
export type SigningName = 'eks' | 'ssm' | 'ec2' | 'sts' | 'iam' | 'autoscaling' | 'monitoring';

export function sdkClientConfig(signingName: SigningName, target: ClusterAwsTarget, options: AwsAdapterOptions = {}): SdkClientConfig {
  const agent = { keepAlive: true as const, maxSockets: SDK_MAX_SOCKETS };
  // The signer signs with its own credentials, not the identity the client resolved: both are given the same
  // provider, so the default chain (instance role, SSO…) is resolved once for the process, not once per client as well.
  const credentials = credentialProviderFor(target, options);
  const signer = new SignatureV4({ credentials, region: target.region, service: signingName, sha256: Sha256, uriEscapePath: true });
  const config: SdkClientConfig = { region: target.region, cacheMiddleware: true, requestHandler: { httpAgent: agent, httpsAgent: agent }, signer, credentials };
  if (options.endpoint) config.endpoint = options.endpoint;
  if (options.maxAttempts !== undefined) config.maxAttempts = options.maxAttempts;
  if (options.retryMode !== undefined) config.retryMode = options.retryMode;
  return config;
}

/** Caches one client per region and role: SDK clients hold connection pools and credential caches worth reusing. */
export function clientCache<C>(create: (target: ClusterAwsTarget) => C): (target: ClusterAwsTarget) => C {
  const clients = new Map<string, C>();
  return (target) => {
    const key = `${target.region}|${target.roleArn ?? ''}`;
    let client = clients.get(key);
    if (!client) clients.set(key, (client = create(target)));
    return client;
  };
}

interface MiddlewareClient {
  middlewareStack: { add(middleware: unknown, options: { step: 'initialize'; name: string }): void };
}

/**
 * Counts the client's calls by operation (the command name without "Command"), and failures by error name, after
 * the SDK's own retries: one count per call the product made, however many attempts it took.
 */
export function instrumented<C extends MiddlewareClient>(client: C, service: string, metrics: Metrics | undefined): C {
  if (!metrics) return client;
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      try {
        const result = await next(args);
        metrics.countAwsCall(service, operation);
        return result;
      } catch (error) {
        metrics.countAwsCall(service, operation, (error as { name?: string } | null)?.name ?? 'Error');
        throw error;
      }
    },
    { step: 'initialize', name: 'eksUpgradeBotMetrics' },
  );
  return client;
}
