/**
 * Kubernetes label selectors (`matchLabels` + `matchExpressions`), evaluated against a pod's labels, for
 * PodDisruptionBudgets and workload selectors. An empty selector matches everything, as in policy/v1 PDBs; a
 * missing one matches nothing.
 */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export function matchesSelector(selector: LabelSelector | undefined | null, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const own = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (own[key] !== value) return false;
  }
  for (const expression of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(own, expression.key);
    const values = expression.values ?? [];
    switch (expression.operator) {
      case 'In':
        if (!has || !values.includes(own[expression.key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(own[expression.key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
