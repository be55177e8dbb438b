/** Kubernetes timestamps (metav1.Time) as the apiserver writes them: RFC 3339 in UTC, whole seconds. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
