/**
 * Puts a scenario's Kubernetes manifests into a cluster's store, as `kubectl apply` of the lab's repo would:
 * namespaces first (including any a manifest names but the scenario forgot), then everything else in file order.
 */

import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimKubeStore } from '../kube/kube-store.js';
import { RESOURCES } from '../kube/objects/resource-registry.js';
import type { ScenarioManifest } from '../scenario/scenario-schema.js';

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function pluralForKind(kind: string): string | undefined {
  return RESOURCES.find((r) => r.kind === kind)?.plural;
}

export function seedManifests(store: SimKubeStore, clusterName: string, manifests: ScenarioManifest[]): void {
  const namespaces = new Set(SYSTEM_NAMESPACES);
  for (const m of manifests) {
    if (m.kind === 'Namespace') namespaces.add(m.metadata.name);
    const ns = (m.metadata as { namespace?: string }).namespace;
    if (ns) namespaces.add(ns);
  }
  for (const name of namespaces) {
    if (!store.get('namespaces', name)) {
      const declared = manifests.find((m) => m.kind === 'Namespace' && m.metadata.name === name);
      store.create('namespaces', (declared ? structuredClone(declared) : { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) as KubeObject);
    }
  }
  manifests.forEach((m, i) => {
    if (m.kind === 'Namespace') return;
    const plural = pluralForKind(m.kind);
    if (!plural) {
      throw new Error(
        `scenario cluster ${clusterName}: kubernetes.${i} is a ${m.kind}, which the simulated apiserver does not serve; use one of ${RESOURCES.map((r) => r.kind).join(', ')}`,
      );
    }
    const object = structuredClone(m) as KubeObject;
    if (RESOURCES.find((r) => r.plural === plural)?.namespaced && !object.metadata.namespace) object.metadata.namespace = 'default';
    store.create(plural, object);
  });
}
