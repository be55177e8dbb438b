import { AwsApiError } from '../aws/aws-error.js';
import { xmlEscape } from '../aws/ec2/ec2-service.js';
import { parseRoleArn } from './caller-identities.js';
import { evaluatePolicy, type Decision, type PolicyDocument } from './policy-document.js';

/**
 * IAM over its query protocol (Version=2010-05-08, XML in the iam namespace), for the one call `doctor` makes:
 * SimulatePrincipalPolicy, answered from the identity policy the simulator enforces (`--iam-policy`; without one
 * every action is allowed, as every call is). Shapes from the IAM API Reference:
 * https://docs.aws.amazon.com/IAM/latest/APIReference/API_SimulatePrincipalPolicy.html and API_EvaluationResult —
 * one EvaluationResult per action, EvalDecision `allowed | explicitDeny | implicitDeny`, ResourceArns default `*`.
 * PolicySourceArn must be a user, group or role ARN (an assumed-role session ARN is InvalidInput, as in IAM), and of
 * the simulated account (another account's principal: NoSuchEntity).
 */
const XMLNS = 'https://iam.amazonaws.com/doc/2010-05-08/';
export const IAM_ACTIONS = new Set(['SimulatePrincipalPolicy']);
const PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::(\d{12}):(user|group|role)\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]+$/;

const tag = (name: string, value: string | number | boolean) => `<${name}>${xmlEscape(String(value))}</${name}>`;

function members(form: URLSearchParams, prefix: string): string[] {
  const values: string[] = [];
  for (let i = 1; form.has(`${prefix}.member.${i}`); i++) values.push(form.get(`${prefix}.member.${i}`)!);
  return values;
}

function contextEntries(form: URLSearchParams): Record<string, string> {
  const context: Record<string, string> = {};
  for (let i = 1; form.has(`ContextEntries.member.${i}.ContextKeyName`); i++) {
    const value = form.get(`ContextEntries.member.${i}.ContextKeyValues.member.1`);
    if (value !== null) context[form.get(`ContextEntries.member.${i}.ContextKeyName`)!] = value;
  }
  return context;
}

const DECISION: Record<Decision, string> = { allowed: 'allowed', 'implicit-deny': 'implicitDeny', 'explicit-deny': 'explicitDeny' };
const RANK: Record<Decision, number> = { allowed: 0, 'implicit-deny': 1, 'explicit-deny': 2 };

export function handleIam(policy: PolicyDocument | undefined, accountId: string, form: URLSearchParams, requestId: string): string {
  const action = form.get('Action') ?? '';
  if (action !== 'SimulatePrincipalPolicy') throw new AwsApiError(400, 'InvalidAction', `Could not find operation ${action || '(none)'} for version 2010-05-08`);
  const source = form.get('PolicySourceArn');
  if (!source) throw new AwsApiError(400, 'ValidationError', "1 validation error detected: Value null at 'policySourceArn' failed to satisfy constraint: Member must not be null");
  const principal = PRINCIPAL_ARN.exec(source);
  if (!principal) throw new AwsApiError(400, 'InvalidInput', `Invalid ARN specified: ${source}. The ARN must be of a user, group or role.`);
  if (principal[1] !== accountId || (principal[2] === 'role' && !parseRoleArn(source))) {
    throw new AwsApiError(404, 'NoSuchEntity', `The ${principal[2]} with name ${source.split('/').pop()} cannot be found.`);
  }
  const actions = members(form, 'ActionNames');
  if (actions.length === 0) throw new AwsApiError(400, 'ValidationError', "1 validation error detected: Value null at 'actionNames' failed to satisfy constraint: Member must not be null");
  const resources = members(form, 'ResourceArns');
  const context = contextEntries(form);
  const results = actions.map((name) => {
    const decisions = (resources.length > 0 ? resources : ['*']).map((resource) => ({
      resource,
      decision: policy ? evaluatePolicy(policy, { action: name, resource, context }) : ('allowed' as Decision),
    }));
    // The top-level decision is the most restrictive across the resources asked about.
    const worst = decisions.reduce((a, b) => (RANK[b.decision] > RANK[a.decision] ? b : a));
    const perResource = resources.length > 0
      ? `<ResourceSpecificResults>${decisions.map((d) => `<member>${tag('EvalResourceName', d.resource)}${tag('EvalResourceDecision', DECISION[d.decision])}<MatchedStatements/><MissingContextValues/></member>`).join('')}</ResourceSpecificResults>`
      : '';
    return `<member>${tag('EvalActionName', name)}${tag('EvalResourceName', resources.length === 1 ? resources[0] : '*')}${tag('EvalDecision', DECISION[worst.decision])}<MatchedStatements/><MissingContextValues/>${perResource}</member>`;
  });
  return (
    `<SimulatePrincipalPolicyResponse xmlns="${XMLNS}"><SimulatePrincipalPolicyResult>${tag('IsTruncated', false)}` +
    `<EvaluationResults>${results.join('')}</EvaluationResults></SimulatePrincipalPolicyResult>` +
    `<ResponseMetadata>${tag('RequestId', requestId)}</ResponseMetadata></SimulatePrincipalPolicyResponse>`
  );
}

export function iamErrorXml(error: AwsApiError, requestId: string): string {
  return `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${error.status >= 500 ? 'Receiver' : 'Sender'}</Type>${tag('Code', error.type)}${tag('Message', error.message)}</Error>${tag('RequestId', requestId)}</ErrorResponse>`;
}
