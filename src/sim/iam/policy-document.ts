/**
 * IAM identity-based policy evaluation, as far as the simulator needs it: Allow / Deny statements with Action or
 * NotAction, Resource or NotResource, `*` and `?` wildcards (action names match case-insensitively, ARNs
 * case-sensitively), and the string condition operators a least-privilege policy uses. The order of evaluation is
 * AWS's: an explicit Deny wins, then an Allow, else the request is implicitly denied.
 * Source: IAM User Guide, "Policy evaluation logic" and "IAM JSON policy elements".
 */
export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface PolicyDocument {
  Version?: string;
  Statement: PolicyStatement | PolicyStatement[];
}

export interface AuthorizationRequest {
  /** `service:Operation`, e.g. eks:DescribeCluster. */
  action: string;
  /** The ARN the action is authorized on, or `*` for actions without resource-level permissions. */
  resource: string;
  /** Condition keys known for this request, e.g. { 'iam:PassedToService': 'eks.amazonaws.com' }. */
  context?: Record<string, string>;
}

export type Decision = 'allowed' | 'implicit-deny' | 'explicit-deny';

export class PolicyDocumentError extends Error {
  override name = 'PolicyDocumentError';
}

const list = <T,>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const statementsOf = (doc: PolicyDocument): PolicyStatement[] => list(doc.Statement);

function wildcard(pattern: string, flags = ''): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, flags);
}

/** Checks the document's shape so that a typo fails loudly at start-up instead of denying everything later. */
export function parsePolicyDocument(input: unknown, source = 'policy'): PolicyDocument {
  const doc = input as PolicyDocument;
  if (!doc || typeof doc !== 'object' || doc.Statement === undefined) {
    throw new PolicyDocumentError(`${source}: an IAM policy document needs a "Statement" (object or array)`);
  }
  statementsOf(doc).forEach((statement, index) => {
    const where = `${source}: Statement[${index}]${statement?.Sid ? ` (${statement.Sid})` : ''}`;
    if (statement?.Effect !== 'Allow' && statement?.Effect !== 'Deny') throw new PolicyDocumentError(`${where}.Effect must be "Allow" or "Deny"`);
    if ((statement.Action === undefined) === (statement.NotAction === undefined)) throw new PolicyDocumentError(`${where} needs exactly one of Action or NotAction`);
    if ((statement.Resource === undefined) === (statement.NotResource === undefined)) throw new PolicyDocumentError(`${where} needs exactly one of Resource or NotResource`);
    for (const action of [...list(statement.Action), ...list(statement.NotAction)]) {
      if (action !== '*' && !/^[a-z0-9-]+:[A-Za-z0-9*?]+$/.test(action)) throw new PolicyDocumentError(`${where}: "${action}" is not an action like eks:DescribeCluster`);
    }
  });
  return doc;
}

export function conditionHolds(condition: PolicyStatement['Condition'], context: Record<string, string>): boolean {
  for (const [operator, keys] of Object.entries(condition ?? {})) {
    for (const [key, expected] of Object.entries(keys)) {
      const actual = context[key];
      const values = list(expected);
      const ifExists = operator.endsWith('IfExists');
      if (actual === undefined) {
        if (ifExists) continue;
        return false;
      }
      const base = operator.replace(/IfExists$/, '');
      const match =
        base === 'StringEquals' ? values.includes(actual)
        : base === 'StringNotEquals' ? !values.includes(actual)
        : base === 'StringLike' ? values.some((v) => wildcard(v).test(actual))
        : base === 'StringNotLike' ? !values.some((v) => wildcard(v).test(actual))
        : base === 'ArnEquals' || base === 'ArnLike' ? values.some((v) => wildcard(v).test(actual))
        : false; // an operator the simulator does not know never matches: deny rather than guess
      if (!match) return false;
    }
  }
  return true;
}

function statementMatches(statement: PolicyStatement, request: AuthorizationRequest): boolean {
  const actionMatches = (patterns: string[]) => patterns.some((p) => wildcard(p, 'i').test(request.action));
  const resourceMatches = (patterns: string[]) => patterns.some((p) => wildcard(p).test(request.resource));
  const action = statement.Action !== undefined ? actionMatches(list(statement.Action)) : !actionMatches(list(statement.NotAction));
  if (!action) return false;
  const resource = statement.Resource !== undefined ? resourceMatches(list(statement.Resource)) : !resourceMatches(list(statement.NotResource));
  return resource && conditionHolds(statement.Condition, request.context ?? {});
}

export function evaluatePolicy(doc: PolicyDocument, request: AuthorizationRequest): Decision {
  const statements = statementsOf(doc);
  const matching = statements.filter((s) => statementMatches(s, request));
  if (matching.some((s) => s.Effect === 'Deny')) return 'explicit-deny';
  return matching.some((s) => s.Effect === 'Allow') ? 'allowed' : 'implicit-deny';
}

/** Every action a document allows by name (wildcards left as written), for comparing with what the code calls. */
export function allowedActions(doc: PolicyDocument): string[] {
  return statementsOf(doc).filter((s) => s.Effect === 'Allow').flatMap((s) => list(s.Action));
}
