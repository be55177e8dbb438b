import { describe, expect, it } from 'vitest';
import { fieldRequirementsFor, fieldValue, FieldSelectorParseError, matchesFields, parseFieldSelector } from '../../../src/sim/kube/api/field-selector.js';
import { matchesRequirements, parseLabelSelector, selectorMatches, SelectorParseError } from '../../../src/sim/kube/api/label-selector.js';

const matches = (selector: string, labels: Record<string, string> | undefined) => matchesRequirements(labels, parseLabelSelector(selector));

describe('label selectors as kubectl -l sends them', () => {
  const orders = { app: 'orders', 'app.kubernetes.io/component': 'service', tier: 'backend' };

  it('matches equality, double equals and inequality (inequality also matches objects without the key)', () => {
    expect(matches('app=orders', orders)).toBe(true);
    expect(matches('app==orders', orders)).toBe(true);
    expect(matches('app=carts', orders)).toBe(false);
    expect(matches('app!=carts', orders)).toBe(true);
    expect(matches('team!=checkout', orders)).toBe(true);
    expect(matches('app!=orders', orders)).toBe(false);
  });

  it('matches set-based requirements as in the workshop (k8s-app in (kube-dns, kube-proxy))', () => {
    expect(matches('k8s-app in (kube-dns, kube-proxy)', { 'k8s-app': 'kube-proxy' })).toBe(true);
    expect(matches('k8s-app in (kube-dns, kube-proxy)', { 'k8s-app': 'aws-node' })).toBe(false);
    expect(matches('k8s-app notin (kube-dns)', {})).toBe(true);
    expect(matches('k8s-app notin (kube-dns)', { 'k8s-app': 'kube-dns' })).toBe(false);
  });

  it('matches existence and absence, and ANDs comma-separated requirements', () => {
    expect(matches('karpenter.sh/nodepool', { 'karpenter.sh/nodepool': 'default' })).toBe(true);
    expect(matches('!karpenter.sh/nodepool', { 'karpenter.sh/nodepool': 'default' })).toBe(false);
    expect(matches('!eks.amazonaws.com/nodegroup', {})).toBe(true);
    expect(matches('app=orders,tier in (backend),!canary', orders)).toBe(true);
    expect(matches('app=orders,tier=frontend', orders)).toBe(false);
    expect(matches('', orders)).toBe(true);
  });

  it('compares numbers with > and <', () => {
    expect(matches('weight>5', { weight: '10' })).toBe(true);
    expect(matches('weight<5', { weight: '10' })).toBe(false);
    expect(matches('weight>5', { weight: 'heavy' })).toBe(false);
  });

  it('rejects malformed selectors the way the apiserver does (400)', () => {
    expect(() => parseLabelSelector('app in orders')).toThrow(SelectorParseError);
    expect(() => parseLabelSelector('=orders')).toThrow(/unable to parse requirement/);
  });

  it('treats a nil LabelSelector as matching nothing and an empty one as matching everything (PDB semantics)', () => {
    expect(selectorMatches(undefined, orders)).toBe(false);
    expect(selectorMatches({}, orders)).toBe(true);
    expect(selectorMatches({ matchLabels: { app: 'orders' } }, orders)).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['backend'] }] }, orders)).toBe(false);
  });
});

describe('field selectors as kubectl drain and describe send them', () => {
  const pod = { metadata: { name: 'orders-1', namespace: 'orders' }, spec: { nodeName: 'ip-10-0-3-199.us-west-2.compute.internal' }, status: { phase: 'Running' } };

  it('selects pods by node and phase', () => {
    expect(matchesFields(pod, parseFieldSelector('spec.nodeName=ip-10-0-3-199.us-west-2.compute.internal'))).toBe(true);
    expect(matchesFields(pod, parseFieldSelector('spec.nodeName=ip-10-0-1-1.us-west-2.compute.internal'))).toBe(false);
    expect(matchesFields(pod, parseFieldSelector('status.phase!=Succeeded,status.phase!=Failed'))).toBe(true);
    expect(matchesFields(pod, parseFieldSelector('metadata.namespace==orders,metadata.name=orders-1'))).toBe(true);
  });

  it('selects events by involved object, and treats an uncordoned node as spec.unschedulable=false', () => {
    const event = { metadata: { name: 'e' }, involvedObject: { kind: 'Node', name: 'n1', namespace: '' } };
    expect(matchesFields(event, parseFieldSelector('involvedObject.kind=Node,involvedObject.name=n1,involvedObject.namespace='))).toBe(true);
    expect(fieldValue({ metadata: { name: 'n' }, spec: {} }, 'spec.unschedulable')).toBe('false');
  });

  const POD = { kind: 'Pod', group: '', namespaced: true };
  const NODE = { kind: 'Node', group: '', namespaced: false };
  const EVENT = { kind: 'Event', group: '', namespaced: true };
  const DEPLOYMENT = { kind: 'Deployment', group: 'apps', namespaced: true };
  const NODEPOOL = { kind: 'NodePool', group: 'karpenter.sh', namespaced: false };

  it("refuses a field a kind does not select on, in the apiserver's words, and takes each kind's own", () => {
    expect(() => fieldRequirementsFor(POD, 'status.qosClass=BestEffort')).toThrow(new FieldSelectorParseError('field label not supported: status.qosClass'));
    expect(() => fieldRequirementsFor(NODE, 'metadata.namespace=default')).toThrow('field label not supported: metadata.namespace');
    expect(() => fieldRequirementsFor(DEPLOYMENT, 'status.replicas=2')).toThrow('"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"');
    expect(() => fieldRequirementsFor(NODEPOOL, 'metadata.namespace=x')).toThrow('field label not supported: metadata.namespace');
    expect(() => fieldRequirementsFor(EVENT, 'message=x')).toThrow('field label not supported: message');
    expect(fieldRequirementsFor(NODEPOOL, 'metadata.name=default')).toEqual([{ field: 'metadata.name', equal: true, value: 'default' }]);
    expect(fieldRequirementsFor(NODE, 'spec.unschedulable=true')).toHaveLength(1);
    expect(fieldRequirementsFor(DEPLOYMENT, 'metadata.name=orders,metadata.namespace!=kube-system')).toHaveLength(2);
  });

  it("reads an event's source as its component and an old client's spec.host as spec.nodeName", () => {
    const event = { metadata: { name: 'e' }, reason: 'FailedCreate', type: 'Warning', source: { component: 'replicaset-controller' } };
    expect(matchesFields(event, fieldRequirementsFor(EVENT, 'source=replicaset-controller,reason=FailedCreate,type=Warning'))).toBe(true);
    expect(matchesFields(event, fieldRequirementsFor(EVENT, 'source=kubelet'))).toBe(false);
    expect(matchesFields(pod, fieldRequirementsFor(POD, 'spec.host=ip-10-0-3-199.us-west-2.compute.internal'))).toBe(true);
  });
});
