import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { fieldRequirementsFor, matchesFields } from './field-selector.js';
import { parseLabelSelector, matchesRequirements } from './label-selector.js';
import type { ResourcePath } from './request-path.js';
import { apiVersionOf } from '../objects/resource-registry.js';

/** Everything a verb handler needs about one request to a resource. */
export interface RequestContext {
  store: SimKubeStoreImpl;
  req: IncomingMessage;
  res: ServerResponse;
  path: ResourcePath;
  query: URLSearchParams;
  minor: number;
}

/** The object as the requested group/version shows it (one storage may serve several versions). */
export function present(ctx: RequestContext, object: KubeObject): KubeObject {
  return { ...object, apiVersion: apiVersionOf(ctx.path.type, ctx.path.version), kind: ctx.path.type.kind };
}

/** labelSelector and fieldSelector of the query (plus the name of a single-object watch) as one predicate. */
export function selectorPredicate(ctx: RequestContext): (object: KubeObject) => boolean {
  const labels = parseLabelSelector(ctx.query.get('labelSelector'));
  const fields = fieldRequirementsFor(ctx.path.type, ctx.query.get('fieldSelector'));
  const name = ctx.path.name;
  return (object) =>
    (name === undefined || object.metadata.name === name) &&
    matchesRequirements(object.metadata.labels, labels) &&
    matchesFields(object, fields);
}

export function isDryRun(query: URLSearchParams): boolean {
  return query.getAll('dryRun').includes('All');
}
