/**
 * Cluster-name globs of clusters.yaml (`digests[].clusters`, rollout waves): `*` any run of characters, `?` one.
 * A glob may use the characters of EKS cluster names plus those two.
 */

export const CLUSTER_GLOB = /^[0-9A-Za-z*?][A-Za-z0-9\-_*?]{0,99}$/;

export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** The names matching any of the globs, in the order the names were given. */
export function matchGlobs(names: string[], globs: string[]): string[] {
  const patterns = globs.map(globToRegExp);
  return names.filter((name) => patterns.some((pattern) => pattern.test(name)));
}
