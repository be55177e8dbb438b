import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../kube-types/kube-object.js';
import { parsePolicyDocument, type PolicyDocument } from './iam/policy-document.js';
import { parseTrustPolicies, type TrustPolicy } from './iam/trust-policy.js';

/**
 * Reads the access documents the simulator can enforce — an IAM policy (JSON) and Kubernetes RBAC objects (YAML,
 * several documents) — failing with a sentence that names the file and what is wrong with it.
 */
export function loadIamPolicyFile(path: string): PolicyDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`reading the IAM policy ${path} failed: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`the IAM policy ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parsePolicyDocument(json, path);
}

/** A JSON object of role ARN to trust policy document (`npm run sim -- --trust-policy trust.json`). */
export function loadTrustPolicyFile(path: string): Map<string, TrustPolicy> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`reading the trust policies ${path} failed: ${(error as Error).message}`, { cause: error });
  }
  return parseTrustPolicies(json, path);
}

export function loadRbacFile(path: string): KubeObject[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`reading the RBAC file ${path} failed: ${(error as Error).message}`, { cause: error });
  }
  const objects = parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`the RBAC file ${path} is not valid YAML: ${doc.errors[0].message}`);
      return doc.toJS() as KubeObject | null;
    })
    .filter((o): o is KubeObject => o !== null);
  const known = objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding');
  if (!known.some((o) => o.kind === 'ClusterRole')) throw new Error(`the RBAC file ${path} has no ClusterRole`);
  return known;
}
