import { describe, expect, it } from 'vitest';
import { compareMinor, formatMinor, hopsBetween, minorOfKubelet, parseMinor } from '../../src/domain/minor-version.js';

describe('minor versions', () => {
  it('parses minors and refuses anything else', () => {
    expect(parseMinor('1.31')).toEqual({ major: 1, minor: 31 });
    expect(parseMinor('v1.9')).toEqual({ major: 1, minor: 9 });
    for (const bad of ['1', '1.31.2', 'latest', '1.3x', '', 'one.two']) expect(parseMinor(bad)).toBeUndefined();
  });

  it('reads kubelet versions as EKS reports them', () => {
    expect(minorOfKubelet('v1.30.14-eks-f69f56f')).toEqual({ major: 1, minor: 30 });
    expect(minorOfKubelet('v1.25.16-eks-2d5f260')).toEqual({ major: 1, minor: 25 });
  });

  it('orders numerically, not as text', () => {
    expect(compareMinor(parseMinor('1.9')!, parseMinor('1.10')!)).toBeLessThan(0);
  });

  it('lists the hops of a multi-minor upgrade', () => {
    expect(hopsBetween(parseMinor('1.25')!, parseMinor('1.28')!).map(formatMinor)).toEqual(['1.26', '1.27', '1.28']);
    expect(hopsBetween(parseMinor('1.30')!, parseMinor('1.30')!)).toEqual([]);
  });
});
