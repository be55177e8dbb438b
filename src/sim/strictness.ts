/**
 * How strict the simulator is. Everything is on by default (`npm run sim`, the demo, the playground, benchmarks
 * and every test): lists in no particular order and in small pages, EKS tokens that expire, custom resources
 * validated, old resourceVersions refused to watches, trust policies. A named relaxation turns one rule off; every
 * use of one must carry a comment saying why (docs/simulator-fidelity.md lists the rules and their sources).
 */
export const RELAXATIONS = [
  /** Lists keep insertion order instead of a fresh shuffle per listing. */
  'ordered-lists',
  /** Lists answer up to the service's documented maximum instead of a small default page. */
  'whole-pages',
  /** EKS bearer tokens never expire and any cluster accepts them. */
  'eternal-tokens',
  /** NodePool and EC2NodeClass are stored without their CRD's schema and CEL checks. */
  'unvalidated-custom-resources',
  /** resourceVersions expire only by count (the last 5,000 changes), never by age. */
  'eternal-resource-versions',
  /** AssumeRole and AssumeRoleWithWebIdentity succeed without a trust policy allowing the caller. */
  'no-trust-policies',
  /** Insights are recomputed on every call instead of at EKS's daily scan and after StartInsightsRefresh. */
  'live-insights',
] as const;

export type Relaxation = (typeof RELAXATIONS)[number];

export interface SimStrictness {
  shuffleLists: boolean;
  /** Items per page when the caller gives no limit; undefined: the service's documented default. */
  defaultPageSize?: number;
  /** How long an EKS token is accepted after its X-Amz-Date, in wall-clock ms; undefined: forever. */
  eksTokenLifetimeMs?: number;
  validateCustomResources: boolean;
  /** How long a resourceVersion stays watchable, in wall-clock ms; undefined: no age limit. */
  resourceVersionWindowMs?: number;
  trustPolicies: boolean;
  scheduledInsights: boolean;
}

/** EKS accepts a token for 15 minutes from its X-Amz-Date (aws-iam-authenticator, pkg/token/token.go). */
export const EKS_TOKEN_LIFETIME_MS = 15 * 60_000;
/** etcd compacts about every 5 minutes on EKS (kube-apiserver --etcd-compaction-interval default 5m). */
export const RESOURCE_VERSION_WINDOW_MS = 5 * 60_000;
/** Small on purpose: AWS documents "up to" a maximum, never a page size, and small pages prove callers page. */
export const STRICT_PAGE_SIZE = 3;

export interface StrictnessOptions {
  relax?: readonly Relaxation[];
  /** Shorter token lifetime for tests that show the bot refreshing its token (wall-clock ms). */
  eksTokenLifetimeMs?: number;
  /** Shorter resourceVersion window for tests that show the bot relisting (wall-clock ms). */
  resourceVersionWindowMs?: number;
}

export function resolveStrictness(options: StrictnessOptions = {}): SimStrictness {
  const relaxed = new Set(options.relax ?? []);
  return {
    shuffleLists: !relaxed.has('ordered-lists'),
    defaultPageSize: relaxed.has('whole-pages') ? undefined : STRICT_PAGE_SIZE,
    eksTokenLifetimeMs: relaxed.has('eternal-tokens') ? undefined : (options.eksTokenLifetimeMs ?? EKS_TOKEN_LIFETIME_MS),
    validateCustomResources: !relaxed.has('unvalidated-custom-resources'),
    resourceVersionWindowMs: relaxed.has('eternal-resource-versions') ? undefined : (options.resourceVersionWindowMs ?? RESOURCE_VERSION_WINDOW_MS),
    trustPolicies: !relaxed.has('no-trust-policies'),
    scheduledInsights: !relaxed.has('live-insights'),
  };
}

export function parseRelaxations(text: string | undefined): Relaxation[] {
  if (!text) return [];
  return text.split(',').map((word) => word.trim()).filter(Boolean).map((word) => {
    if (!(RELAXATIONS as readonly string[]).includes(word)) {
      throw new Error(`--relax ${word}: not a simulator rule; choose from ${RELAXATIONS.join(', ')}`);
    }
    return word as Relaxation;
  });
}
