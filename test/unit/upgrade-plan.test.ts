import { describe, expect, it } from 'vitest';
import { hopsOf, jobSteps, PlanError } from '../../src/planning/planner/job-steps.js';

describe('jobSteps', () => {
  it('plans one hop as preflight → gate → control plane → verify, with stable ids', () => {
    const { hops, steps } = jobSteps({ cluster: 'demo', from: '1.30', to: '1.31', kinds: ['preflight', 'gate', 'control-plane', 'verify'] });
    expect(hops).toEqual(['1.31']);
    expect(steps.map((step) => step.id)).toEqual(['h1-preflight', 'h1-gate-control-plane', 'h1-control-plane', 'h1-verify']);
    expect(steps.every((step) => step.from === '1.30' && step.to === '1.31')).toBe(true);
    expect(steps[1].title).toBe('approval: control plane of demo to 1.31');
  });

  it('runs hop after hop for a target more than one minor ahead, each hop starting where the last ended', () => {
    const { hops, steps } = jobSteps({ cluster: 'prod', from: '1.29', to: '1.31', kinds: ['preflight', 'gate', 'control-plane', 'addons', 'verify'] });
    expect(hops).toEqual(['1.30', '1.31']);
    expect(steps.map((step) => `${step.id} ${step.from}→${step.to}`)).toEqual([
      'h1-preflight 1.29→1.30',
      'h1-gate-control-plane 1.29→1.30',
      'h1-control-plane 1.29→1.30',
      'h1-addons 1.29→1.30',
      'h1-verify 1.29→1.30',
      'h2-preflight 1.30→1.31',
      'h2-gate-control-plane 1.30→1.31',
      'h2-control-plane 1.30→1.31',
      'h2-addons 1.30→1.31',
      'h2-verify 1.30→1.31',
    ]);
    expect(steps[5].title).toBe('hop 2: preflight for 1.31');
  });

  it('keeps the hop order whatever order the kinds are given in', () => {
    const { steps } = jobSteps({ cluster: 'demo', from: '1.30', to: '1.31', kinds: ['verify', 'control-plane', 'preflight'] });
    expect(steps.map((step) => step.kind)).toEqual(['preflight', 'control-plane', 'verify']);
  });

  it('refuses downgrades, same-version targets and malformed versions with a sentence', () => {
    expect(() => hopsOf('1.31', '1.30')).toThrow(/not newer than the current version 1.31/);
    expect(() => hopsOf('1.31', '1.31')).toThrow(PlanError);
    expect(() => hopsOf('1.30', 'latest')).toThrow(/"latest" is not a Kubernetes minor version/);
  });
});

import { describeImageDiff, diffImages, imageInventory } from '../../src/planning/deciders/image-inventory.js';

describe('image inventory', () => {
  it('lists unique images and diffs before against after, as the workshop 1.25.txt / 1.26.txt', () => {
    const pod = (images: string[]) => ({ metadata: { name: 'p' }, spec: { containers: images.map((image) => ({ name: 'c', image })) } });
    const before = imageInventory([pod(['eks/kube-proxy:v1.25.16-minimal-eksbuild.8', 'app:1']), pod(['app:1'])]);
    const after = imageInventory([pod(['eks/kube-proxy:v1.26.15-minimal-eksbuild.24', 'app:1'])]);
    expect(before).toEqual(['app:1', 'eks/kube-proxy:v1.25.16-minimal-eksbuild.8']);
    expect(describeImageDiff(diffImages(before, after))).toEqual([
      'Container images before → after: 1 gone, 1 new.',
      '- eks/kube-proxy:v1.25.16-minimal-eksbuild.8',
      '+ eks/kube-proxy:v1.26.15-minimal-eksbuild.24',
    ]);
    expect(describeImageDiff(diffImages(after, after))).toEqual(['Container images: unchanged.']);
  });
});
