import { AwsApiError } from '../aws/aws-error.js';
import { xmlEscape } from '../aws/ec2/ec2-service.js';
import { parseRoleArn, type CallerIdentities, type CallerIdentity } from './caller-identities.js';
import { checkTrust, type TrustPolicies } from './trust-policy.js';

/**
 * STS over its query protocol (form-encoded `Action=…&Version=2011-06-15`, XML answers and
 * `<ErrorResponse><Error><Type>Sender</Type>…` errors): GetCallerIdentity, AssumeRole and
 * AssumeRoleWithWebIdentity. A role is assumed only when the caller's identity policy allows sts:AssumeRole on it
 * (checked before this handler runs) and the role's trust policy allows the caller (trust-policy.ts); a web
 * identity's OIDC provider is `arn:aws:iam::<account>:oidc-provider/<issuer without https://>`.
 */
const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
/** Actions STS answers without a signature (the web identity token is the credential). */
export const UNSIGNED_STS_ACTIONS = new Set(['AssumeRoleWithWebIdentity', 'AssumeRoleWithSAML']);
export const STS_ACTIONS = new Set(['GetCallerIdentity', 'AssumeRole', 'AssumeRoleWithWebIdentity']);

const tag = (name: string, value: string | number) => `<${name}>${xmlEscape(String(value))}</${name}>`;

function validationError(message: string): AwsApiError {
  return new AwsApiError(400, 'ValidationError', message);
}

function requireParam(form: URLSearchParams, name: string, member: string): string {
  const value = form.get(name);
  if (!value) throw validationError(`1 validation error detected: Value null at '${member}' failed to satisfy constraint: Member must not be null`);
  return value;
}

function sessionInputs(form: URLSearchParams): { roleArn: string; sessionName: string; durationSeconds: number } {
  const roleArn = requireParam(form, 'RoleArn', 'roleArn');
  const sessionName = requireParam(form, 'RoleSessionName', 'roleSessionName');
  if (!parseRoleArn(roleArn)) throw validationError(`${roleArn} is invalid`);
  if (!/^[\w+=,.@-]{2,64}$/.test(sessionName)) {
    throw validationError(`1 validation error detected: Value '${sessionName}' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*`);
  }
  const durationSeconds = Number(form.get('DurationSeconds') ?? 3600);
  if (!Number.isInteger(durationSeconds) || durationSeconds < 900 || durationSeconds > 43200) {
    throw validationError(`1 validation error detected: Value '${form.get('DurationSeconds')}' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900`);
  }
  return { roleArn, sessionName, durationSeconds };
}

function credentialsXml(session: { accessKeyId: string; secretAccessKey: string; sessionToken: string; expiration: number; arn: string; userId: string }): string {
  return (
    `<AssumedRoleUser>${tag('AssumedRoleId', session.userId)}${tag('Arn', session.arn)}</AssumedRoleUser>` +
    `<Credentials>${tag('AccessKeyId', session.accessKeyId)}${tag('SecretAccessKey', session.secretAccessKey)}` +
    `${tag('SessionToken', session.sessionToken)}${tag('Expiration', new Date(session.expiration).toISOString().replace(/\.\d{3}Z$/, 'Z'))}</Credentials>`
  );
}

function decodeJwt(token: string): Record<string, unknown> {
  const parts = token.split('.');
  try {
    if (parts.length !== 3) throw new Error('not three parts');
    return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new AwsApiError(400, 'InvalidIdentityToken', 'The ID Token provided is not a valid JWT. (You may see this error if you sent an Access Token)');
  }
}

export function handleSts(
  identities: CallerIdentities,
  caller: CallerIdentity | undefined,
  form: URLSearchParams,
  requestId: string,
  trust?: { policies: TrustPolicies | undefined; account: string },
): string {
  const action = form.get('Action') ?? '';
  const respond = (inner: string) =>
    `<${action}Response xmlns="${XMLNS}"><${action}Result>${inner}</${action}Result><ResponseMetadata>${tag('RequestId', requestId)}</ResponseMetadata></${action}Response>`;
  switch (action) {
    case 'GetCallerIdentity':
      if (!caller) throw new AwsApiError(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
      return respond(`${tag('Arn', caller.arn)}${tag('UserId', caller.userId)}${tag('Account', caller.account)}`);
    case 'AssumeRole': {
      const inputs = sessionInputs(form);
      if (trust) {
        checkTrust(trust.policies, trust.account, { action: 'sts:AssumeRole', roleArn: inputs.roleArn, callerArn: caller?.arn, callerAccount: caller?.account, context: caller ? { 'aws:PrincipalArn': caller.arn } : {} });
      }
      const session = identities.startSession(inputs);
      return respond(`${credentialsXml(session)}${tag('PackedPolicySize', 0)}`);
    }
    case 'AssumeRoleWithWebIdentity': {
      const claims = decodeJwt(requireParam(form, 'WebIdentityToken', 'webIdentityToken'));
      const inputs = sessionInputs(form);
      const issuer = String(claims.iss ?? '').replace(/^https:\/\//, '');
      if (trust) {
        const audience = String(Array.isArray(claims.aud) ? claims.aud[0] : claims.aud ?? '');
        checkTrust(trust.policies, trust.account, {
          action: 'sts:AssumeRoleWithWebIdentity',
          roleArn: inputs.roleArn,
          federated: `arn:aws:iam::${parseRoleArn(inputs.roleArn)?.account ?? trust.account}:oidc-provider/${issuer}`,
          context: { [`${issuer}:sub`]: String(claims.sub ?? ''), [`${issuer}:aud`]: audience },
        });
      }
      const session = identities.startSession(inputs);
      return respond(
        `${tag('SubjectFromWebIdentityToken', String(claims.sub ?? ''))}${tag('Audience', String(Array.isArray(claims.aud) ? claims.aud[0] : claims.aud ?? ''))}` +
          `${credentialsXml(session)}${tag('Provider', issuer)}`,
      );
    }
    default:
      throw new AwsApiError(400, 'InvalidAction', `Could not find operation ${action || '(none)'} for version 2011-06-15`);
  }
}

export function stsErrorXml(error: AwsApiError, requestId: string): string {
  const type = error.status >= 500 ? 'Receiver' : 'Sender';
  return `<ErrorResponse xmlns="${XMLNS}"><Error>${tag('Type', type)}${tag('Code', error.type)}${tag('Message', error.message)}</Error>${tag('RequestId', requestId)}</ErrorResponse>`;
}
