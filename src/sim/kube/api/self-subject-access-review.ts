import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJson, sendStatus } from './http-io.js';
import type { KubeRequestAccess } from './kube-access.js';
import { badRequest, kubeStatus } from './kube-status.js';

/**
 * POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews: "may I <verb> <resource>?" answered for the
 * requester by the same RBAC rules that guard its requests (what `kubectl auth can-i` asks). Every authenticated
 * user may create it (system:basic-user), so it is never itself forbidden.
 */
export async function serveSelfSubjectAccessReview(req: IncomingMessage, res: ServerResponse, access: KubeRequestAccess | undefined): Promise<void> {
  let review: { apiVersion?: string; kind?: string; metadata?: object; spec?: { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> } };
  try {
    review = JSON.parse(await readBody(req));
  } catch {
    return sendStatus(res, badRequest('the SelfSubjectAccessReview body is not valid JSON'));
  }
  const attributes = review.spec?.resourceAttributes;
  if (!attributes && !review.spec?.nonResourceAttributes) {
    // 422 Invalid, as pkg/apis/authorization/validation ValidateSelfSubjectAccessReviewSpec answers an empty spec.
    const message = 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified';
    return sendStatus(
      res,
      kubeStatus(422, 'Invalid', `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: ${message}`, {
        group: 'authorization.k8s.io',
        kind: 'SelfSubjectAccessReview',
        causes: [{ reason: 'FieldValueInvalid', message, field: 'spec.resourceAttributes' }],
      }),
    );
  }
  // Non-resource URLs (/version, discovery) are open to every authenticated user on EKS.
  const allowed = attributes
    ? (access?.allows({
        verb: attributes.verb ?? '',
        group: attributes.group ?? '',
        resource: attributes.resource ?? '',
        subresource: attributes.subresource || undefined,
        namespace: attributes.namespace || undefined,
        name: attributes.name || undefined,
      }) ?? true)
    : true;
  sendJson(res, 201, {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: review.spec,
    status: allowed ? { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding' } : { allowed: false },
  });
}
