import { randomBytes } from 'node:crypto';

/**
 * Who signed a request, as STS GetCallerIdentity would say it. Keys the simulator did not issue belong to an IAM
 * user named after the key (the simulator cannot know the real user, and any dummy key works, as before);
 * keys it issued through AssumeRole / AssumeRoleWithWebIdentity belong to the assumed-role session, whose ARN
 * `arn:aws:sts::<account>:assumed-role/<role>/<session>` is also the Kubernetes user name an EKS access entry gives
 * a role's sessions (`{{SessionName}}` expanded).
 */
export interface CallerIdentity {
  arn: string;
  /** AIDA… for users, AROA…:<session> for role sessions. */
  userId: string;
  account: string;
}

export interface RoleSession extends CallerIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: number;
  roleArn: string;
}

export interface CallerIdentities {
  /** The identity behind an access key id (any key: unknown ones are users of the simulated account). */
  identityOf(accessKeyId: string): CallerIdentity;
  /** True for a session key (ASIA…) the simulator never issued or that has expired. */
  isUnknownSessionKey(accessKeyId: string): boolean;
  startSession(input: { roleArn: string; sessionName: string; durationSeconds: number }): RoleSession;
  /**
   * The secret behind an access key, where the simulator knows it: the sessions it issued, and the static keys it
   * was given (`staticKeys`, by default the test credentials docs/simulator.md names). Undefined otherwise.
   */
  secretOf?(accessKeyId: string): string | undefined;
}

const ROLE_ARN = /^arn:aws[a-z-]*:iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]+)$/;

export function parseRoleArn(roleArn: string): { account: string; name: string } | undefined {
  const match = ROLE_ARN.exec(roleArn);
  return match ? { account: match[1], name: match[2] } : undefined;
}

// Stable, readable ids: the same role always has the same AROA id, as in IAM.
function idFor(prefix: string, seed: string): string {
  let hash = 0;
  for (const ch of seed) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return prefix + hash.toString(36).toUpperCase().padStart(17, 'X').slice(0, 17);
}

/**
 * The static keys whose secrets the simulator knows unless told otherwise: the credentials the tests, the demo and
 * the docs sign with (any other static key is still accepted, but a signature made with it cannot be checked).
 */
export const KNOWN_STATIC_KEYS: Readonly<Record<string, string>> = { AKIDSIMULATOR: 'simulator', test: 'test' };

export function createCallerIdentities(opts: { accountId: string; now: () => number; staticKeys?: Readonly<Record<string, string>> }): CallerIdentities {
  const sessions = new Map<string, RoleSession>();
  const staticKeys = opts.staticKeys ?? KNOWN_STATIC_KEYS;
  return {
    identityOf(accessKeyId) {
      const session = sessions.get(accessKeyId);
      if (session) return { arn: session.arn, userId: session.userId, account: session.account };
      return { arn: `arn:aws:iam::${opts.accountId}:user/${accessKeyId}`, userId: idFor('AIDA', accessKeyId), account: opts.accountId };
    },
    secretOf(accessKeyId) {
      return sessions.get(accessKeyId)?.secretAccessKey ?? (Object.hasOwn(staticKeys, accessKeyId) ? staticKeys[accessKeyId] : undefined);
    },
    isUnknownSessionKey(accessKeyId) {
      if (!accessKeyId.startsWith('ASIA')) return false;
      const session = sessions.get(accessKeyId);
      return !session || session.expiration <= opts.now();
    },
    startSession({ roleArn, sessionName, durationSeconds }) {
      const role = parseRoleArn(roleArn);
      if (!role) throw new Error(`not a role ARN: ${roleArn}`);
      const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
      const session: RoleSession = {
        accessKeyId,
        secretAccessKey: randomBytes(20).toString('base64'),
        sessionToken: `IQoJb3JpZ2luX2VjE${randomBytes(48).toString('base64')}`,
        expiration: opts.now() + durationSeconds * 1000,
        roleArn,
        arn: `arn:aws:sts::${role.account}:assumed-role/${role.name}/${sessionName}`,
        userId: `${idFor('AROA', roleArn)}:${sessionName}`,
        account: role.account,
      };
      sessions.set(accessKeyId, session);
      return session;
    },
  };
}

/** The access key id in a SigV4 Authorization header or presigned query (X-Amz-Credential=AKID/date/region/service/aws4_request). */
export function accessKeyOf(credential: string | null | undefined): string | undefined {
  return /^(?:.*Credential=)?(\w+)\/\d{8}\//.exec(credential ?? '')?.[1];
}

/** The service in a SigV4 credential scope, e.g. `eks`, `sts`, `autoscaling`. */
export function signedServiceOf(authorization: string | undefined): string | undefined {
  return /Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/([a-z0-9-]+)\/aws4_request/.exec(authorization ?? '')?.[1];
}
