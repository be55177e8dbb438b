import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { CLUSTER_ROLE_FILE, type RbacRule } from './cluster-checks.js';

/** The rules of the ClusterRole in a YAML file (deploy/rbac/cluster-role.yaml), or a sentence saying what is wrong. */
export function readClusterRoleRules(path: string): RbacRule[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`could not read the ClusterRole ${path} (${(error as Error).message}); give it with --cluster-role <file>.`, { cause: error });
  }
  const role = parseAllDocuments(text).map((d) => d.toJS() as { kind?: string; rules?: RbacRule[] } | null).find((o) => o?.kind === 'ClusterRole');
  if (!role?.rules) throw new Error(`${path} has no ClusterRole with rules.`);
  return role.rules;
}

/** The repository's ClusterRole: from the working directory, or beside the sources (tsx) or the image's /app (the bundle sits in dist/sim/). */
export function defaultClusterRoleFile(): string {
  const candidates = [CLUSTER_ROLE_FILE, fileURLToPath(new URL(`../../${CLUSTER_ROLE_FILE}`, import.meta.url))];
  return candidates.find((path) => existsSync(path)) ?? CLUSTER_ROLE_FILE;
}
