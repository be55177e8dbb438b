import type { KubeObject } from '../../../kube-types/kube-object.js';

/**
 * Karpenter's CRD schemas, checked by hand one rule at a time, each with the message the apiserver gives for it
 * (OpenAPI enum → "Unsupported value", maxItems → "Too many", minItems/pattern → "Invalid value … in body …",
 * required → "Required value", an x-kubernetes-validations CEL rule → `Invalid value: "array": <its message>`).
 * Sources: kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go (v1.x) and aws/karpenter-provider-aws
 * pkg/apis/v1/ec2nodeclass.go; the messages' shape is k8s.io/apimachinery field.Error and apiextensions'
 * schema validation.
 */
export interface FieldCause {
  reason: 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueRequired' | 'FieldValueTooMany';
  field: string;
  message: string;
}

const list = (values: string[]) => values.map((v) => JSON.stringify(v)).join(', ');
const unsupported = (field: string, value: unknown, allowed: string[]): FieldCause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${list(allowed)}`,
});
const required = (field: string): FieldCause => ({ reason: 'FieldValueRequired', field, message: 'Required value' });
const tooMany = (field: string, count: number, max: number): FieldCause => ({ reason: 'FieldValueTooMany', field, message: `Too many: ${count}: must have at most ${max} items` });
const cel = (field: string, message: string): FieldCause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: "array": ${message}` });
const pattern = (field: string, value: unknown, regex: string): FieldCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${field} in body should match '${regex}'`,
});

const CONSOLIDATION_POLICIES = ['WhenEmpty', 'WhenEmptyOrUnderutilized'];
const BUDGET_REASONS = ['Underutilized', 'Empty', 'Drifted'];
const BUDGET_NODES = '^((100|[0-9]{1,2})%|[0-9]+)$';
const BUDGET_DURATION = '^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$';
const REQUIREMENT_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];

/** NodePool (karpenter.sh/v1): disruption policy, budgets and template requirements. */
export function validateNodePool(object: KubeObject): FieldCause[] {
  const causes: FieldCause[] = [];
  const disruption = object.spec?.disruption ?? {};
  if (disruption.consolidationPolicy !== undefined && !CONSOLIDATION_POLICIES.includes(disruption.consolidationPolicy)) {
    causes.push(unsupported('spec.disruption.consolidationPolicy', disruption.consolidationPolicy, CONSOLIDATION_POLICIES));
  }
  const budgets: any[] = Array.isArray(disruption.budgets) ? disruption.budgets : [];
  // +kubebuilder:validation:MaxItems=50
  if (budgets.length > 50) causes.push(tooMany('spec.disruption.budgets', budgets.length, 50));
  budgets.forEach((budget, i) => {
    const at = `spec.disruption.budgets[${i}]`;
    if (typeof budget?.nodes !== 'string' || !new RegExp(BUDGET_NODES).test(budget.nodes)) causes.push(pattern(`${at}.nodes`, budget?.nodes, BUDGET_NODES));
    if (budget?.duration !== undefined && !new RegExp(BUDGET_DURATION).test(String(budget.duration))) causes.push(pattern(`${at}.duration`, budget.duration, BUDGET_DURATION));
    // reasons: +kubebuilder:validation:Enum:={Underutilized,Empty,Drifted}
    (Array.isArray(budget?.reasons) ? budget.reasons : []).forEach((reason: unknown, j: number) => {
      if (!BUDGET_REASONS.includes(String(reason))) causes.push(unsupported(`${at}.reasons[${j}]`, reason, BUDGET_REASONS));
    });
  });
  // XValidation rule="self.all(x, has(x.schedule) == has(x.duration))"
  if (budgets.some((b) => (b?.schedule !== undefined) !== (b?.duration !== undefined))) causes.push(cel('spec.disruption.budgets', "'schedule' must be set with 'duration'"));
  const requirements: any[] = Array.isArray(object.spec?.template?.spec?.requirements) ? object.spec.template.spec.requirements : [];
  requirements.forEach((requirement, i) => {
    if (!REQUIREMENT_OPERATORS.includes(requirement?.operator)) causes.push(unsupported(`spec.template.spec.requirements[${i}].operator`, requirement?.operator, REQUIREMENT_OPERATORS));
  });
  return causes;
}

const AMI_FAMILIES = ['AL2', 'AL2023', 'Bottlerocket', 'Custom', 'Windows2019', 'Windows2022', 'Windows2025'];

/** EC2NodeClass (karpenter.k8s.aws/v1): amiSelectorTerms, amiFamily, role / instanceProfile. */
export function validateEc2NodeClass(object: KubeObject): FieldCause[] {
  const causes: FieldCause[] = [];
  const spec = object.spec ?? {};
  if (spec.amiFamily !== undefined && !AMI_FAMILIES.includes(spec.amiFamily)) causes.push(unsupported('spec.amiFamily', spec.amiFamily, AMI_FAMILIES));
  const terms: any[] | undefined = spec.amiSelectorTerms;
  const field = 'spec.amiSelectorTerms';
  // +required, MinItems:=1, MaxItems:=30
  if (terms === undefined || terms === null) return [...causes, required(field)];
  if (!Array.isArray(terms)) return [...causes, { reason: 'FieldValueInvalid', field, message: `Invalid value: "${typeof terms}": ${field} in body must be of type array: "${typeof terms}"` }];
  if (terms.length < 1) causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: 0: ${field} in body should have at least 1 items` });
  if (terms.length > 30) causes.push(tooMany(field, terms.length, 30));
  const has = (term: any, key: string) => term !== null && typeof term === 'object' && term[key] !== undefined;
  if (!terms.every((t) => has(t, 'tags') || has(t, 'id') || has(t, 'name') || has(t, 'alias') || has(t, 'ssmParameter'))) {
    causes.push(cel(field, "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']"));
  }
  if (terms.some((t) => has(t, 'id') && (has(t, 'alias') || has(t, 'tags') || has(t, 'name') || has(t, 'owner')))) {
    causes.push(cel(field, "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms"));
  }
  if (terms.some((t) => has(t, 'alias') && (has(t, 'id') || has(t, 'tags') || has(t, 'name') || has(t, 'owner')))) {
    causes.push(cel(field, "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms"));
  }
  if (terms.some((t) => has(t, 'alias')) && terms.length !== 1) {
    causes.push(cel(field, "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms"));
  }
  return [...causes, ...validateEc2NodeClassSpec(spec, terms)];
}

const ALIAS_FAMILIES: Record<string, string> = { al2: 'AL2', al2023: 'AL2023', bottlerocket: 'Bottlerocket', windows2019: 'Windows2019', windows2022: 'Windows2022' };

/**
 * The rules karpenter-provider-aws puts on the whole spec (pkg/apis/v1/ec2nodeclass.go, the XValidation markers on
 * type EC2NodeClass, so the apiserver names the field `spec` and the value `"object"`), and the two on role and
 * instanceProfile themselves:
 * - `(has(self.role) && !has(self.instanceProfile)) || (!has(self.role) && has(self.instanceProfile))`:
 *   "must specify exactly one of ['role', 'instanceProfile']";
 * - `self.amiSelectorTerms.exists(x, has(x.alias)) ? true : has(self.amiFamily)`:
 *   "must specify amiFamily if amiSelectorTerms does not contain an alias";
 * - with an alias of family F, a set amiFamily must be F or Custom: "if set, amiFamily must be 'AL2023' or 'Custom'
 *   when using an AL2023 alias" (one rule per family; "a Bottlerocket alias", "an AL2… alias" as written there);
 * - role and instanceProfile, when present: `self != ''`, "role cannot be empty" / "instanceProfile cannot be empty".
 */
function validateEc2NodeClassSpec(spec: any, terms: any[]): FieldCause[] {
  const causes: FieldCause[] = [];
  const object = (message: string): FieldCause => ({ reason: 'FieldValueInvalid', field: 'spec', message: `Invalid value: "object": ${message}` });
  const present = (key: string) => spec[key] !== undefined && spec[key] !== null;
  if (present('role') === present('instanceProfile')) causes.push(object("must specify exactly one of ['role', 'instanceProfile']"));
  const alias = terms.find((t) => t !== null && typeof t === 'object' && typeof t.alias === 'string')?.alias as string | undefined;
  const family = alias ? ALIAS_FAMILIES[alias.split('@')[0]!] : undefined;
  if (present('amiFamily') && family && spec.amiFamily !== family && spec.amiFamily !== 'Custom') {
    const article = family === 'AL2' || family === 'AL2023' ? 'an' : 'a';
    causes.push(object(`if set, amiFamily must be '${family}' or 'Custom' when using ${article} ${family} alias`));
  }
  if (!alias && !present('amiFamily')) causes.push(object('must specify amiFamily if amiSelectorTerms does not contain an alias'));
  if (spec.role === '') causes.push({ reason: 'FieldValueInvalid', field: 'spec.role', message: 'Invalid value: "string": role cannot be empty' });
  if (spec.instanceProfile === '') causes.push({ reason: 'FieldValueInvalid', field: 'spec.instanceProfile', message: 'Invalid value: "string": instanceProfile cannot be empty' });
  return causes;
}
