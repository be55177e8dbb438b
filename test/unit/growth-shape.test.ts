import { describe, expect, it } from 'vitest';
import { curveShape, growthExponents, marginalCosts } from '../support/growth-shape.js';

describe('growth shape of a cost curve (bench/scale-cost.ts)', () => {
  it('reads the exponent between neighbouring sizes', () => {
    const exponents = growthExponents([{ size: 1000, cost: 1000 }, { size: 10, cost: 10 }, { size: 100, cost: 100 }]);
    expect(exponents.map((k) => Number(k.toFixed(3)))).toEqual([1, 1]);
  });

  it('calls a cost that grows with the square of the work super-linear', () => {
    expect(curveShape([{ size: 10, cost: 100 }, { size: 100, cost: 10_000 }, { size: 1000, cost: 1_000_000 }])).toBe('super-linear');
  });

  it('calls one quadratic step among linear ones super-linear', () => {
    expect(curveShape([{ size: 50, cost: 50 }, { size: 500, cost: 500 }, { size: 2000, cost: 8000 }])).toBe('super-linear');
  });

  it('sees a quadratic part behind a large fixed cost', () => {
    // 1 s of start-up plus 0.001·n²: the slope alone stays under 1, the cost of one more node does not.
    const points = [50, 500, 2000].map((size) => ({ size, cost: 1000 + 0.001 * size * size }));
    expect(growthExponents(points).every((k) => k < 1.15)).toBe(true);
    expect(curveShape(points)).toBe('super-linear');
  });

  it('calls proportional cost linear and a flattening one sub-linear', () => {
    expect(curveShape([{ size: 10, cost: 12 }, { size: 100, cost: 118 }, { size: 1000, cost: 1090 }])).toBe('linear');
    expect(curveShape([{ size: 10, cost: 100 }, { size: 100, cost: 300 }, { size: 1000, cost: 900 }])).toBe('sub-linear');
  });

  it('does not call a near-flat curve super-linear for noise in its small steps (pages of a list)', () => {
    // 77, 79, 94 requests for 50, 500, 2,000 nodes: one more page per 500 items or so.
    expect(curveShape([{ size: 50, cost: 99 }, { size: 500, cost: 101 }, { size: 2000, cost: 116 }])).toBe('sub-linear');
  });

  it('does not call an excess within the noise floor super-linear', () => {
    // CPU ms beyond start-up of status at 50, 500, 2,000 nodes: 10 ms rusage ticks, ±50 ms between runs.
    const points = [{ size: 50, cost: 100 }, { size: 500, cost: 110 }, { size: 2000, cost: 220 }];
    expect(curveShape(points)).toBe('super-linear');
    expect(curveShape(points, 100)).not.toBe('super-linear');
  });

  it('reads costs within the noise floor as the floor: a flat curve, not an unknown one, and growth out of the floor still shows', () => {
    // CPU ms beyond start-up of `status <cluster>` at 50, 500, 2,000 nodes: 50, 0, 120 (the start-up itself varies by ±50 ms).
    expect(curveShape([{ size: 50, cost: 50 }, { size: 500, cost: 0 }, { size: 2000, cost: 120 }])).toBe('unknown');
    expect(curveShape([{ size: 50, cost: 50 }, { size: 500, cost: 0 }, { size: 2000, cost: 120 }], 100)).toBe('sub-linear');
    expect(curveShape([{ size: 50, cost: 20 }, { size: 500, cost: -10 }, { size: 2000, cost: 60 }], 100)).toBe('sub-linear');
    // Quadratic once out of the floor: 10, 100, 1,600 ms.
    expect(curveShape([{ size: 50, cost: 10 }, { size: 500, cost: 100 }, { size: 2000, cost: 1600 }], 100)).toBe('super-linear');
  });

  it('reads the cost of one more unit between sizes', () => {
    expect(marginalCosts([{ size: 10, cost: 600 }, { size: 100, cost: 1500 }, { size: 1000, cost: 10_500 }])).toEqual([10, 10]);
  });

  it('says unknown when a cost was not measured', () => {
    expect(curveShape([{ size: 10, cost: NaN }, { size: 100, cost: 5 }])).toBe('unknown');
    expect(curveShape([{ size: 10, cost: 5 }])).toBe('unknown');
  });
});
