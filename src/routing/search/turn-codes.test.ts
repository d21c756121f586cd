import { describe, expect, it } from 'vitest';
import { encodeTurnDelays } from './td-astar.js';

describe('encodeTurnDelays', () => {
  it('one-byte codes for few distinct delays, decoded exactly (forbidden turns stay -1)', () => {
    const delays = Float32Array.from([0, 2, 5, 60, -1, 15, 10, 25, 0, 2.5, -1, 8]);
    const { codes, values } = encodeTurnDelays(delays);
    expect(codes).toBeInstanceOf(Uint8Array);
    for (let i = 0; i < delays.length; i++) expect(values[codes[i]]).toBe(delays[i]);
  });

  it('two-byte codes beyond 256 distinct delays, still exact', () => {
    const delays = new Float32Array(1000);
    for (let i = 0; i < delays.length; i++) delays[i] = (i % 300) * 0.37 - (i % 7 === 0 ? 1 : 0);
    const { codes, values } = encodeTurnDelays(delays);
    expect(codes).toBeInstanceOf(Uint16Array);
    for (let i = 0; i < delays.length; i++) expect(values[codes[i]]).toBe(delays[i]);
  });
});
