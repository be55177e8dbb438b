import { describe, expect, it } from 'vitest';
import { targetProblem } from '../../commands/start.js';
import { parseMinor, type MinorVersion } from '../../src/domain/minor-version.js';

/**
 * Which targets `/eks-upgrade start` accepts: newer than the cluster, offered by EKS, and — for a target more than
 * one minor ahead, run hop after hop — every minor on the way offered too.
 */
const v = (text: string): MinorVersion => parseMinor(text)!;
const offered = ['1.30', '1.31', '1.32', '1.33'].map(v);

describe('start: targetProblem', () => {
  it('accepts the next minor and, hop after hop, a target several minors ahead when every minor on the way is offered', () => {
    expect(targetProblem('demo', v('1.30'), v('1.31'), offered)).toBeUndefined();
    expect(targetProblem('demo', v('1.30'), v('1.32'), offered)).toBeUndefined();
    expect(targetProblem('demo', v('1.30'), v('1.33'), offered)).toBeUndefined();
  });

  it('refuses a target whose way passes through a minor EKS does not offer', () => {
    const withGap = ['1.30', '1.31', '1.33'].map(v);
    expect(targetProblem('demo', v('1.30'), v('1.33'), withGap)).toBe(
      'EKS does not offer Kubernetes 1.32, which an upgrade from 1.30 to 1.33 passes through (the control plane moves one minor at a time; it offers 1.30, 1.31, 1.33).',
    );
    expect(targetProblem('demo', v('1.30'), v('1.31'), withGap)).toBeUndefined();
  });

  it('refuses the same version, a downgrade and a target EKS does not offer, in words', () => {
    expect(targetProblem('demo', v('1.30'), v('1.30'), offered)).toBe('demo is already at 1.30.');
    expect(targetProblem('demo', v('1.31'), v('1.30'), offered)).toBe('demo is at 1.31; EKS cannot downgrade a cluster, so 1.30 is not possible.');
    expect(targetProblem('demo', v('1.30'), v('1.40'), offered)).toBe('EKS does not offer Kubernetes 1.40 (it offers 1.30–1.33).');
    expect(targetProblem('demo', v('1.30'), v('1.31'), [])).toBe('EKS does not offer Kubernetes 1.31 (it lists no versions).');
  });
});
