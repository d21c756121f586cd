/**
 * Bodies of a million pings are read with bounded memory: the body (≈ 106 MB as JSON or NDJSON)
 * is generated on the fly and never held, so heap plus external memory may grow only by what the
 * reader keeps. Reading everything first would need well over 150 MB (the text alone, plus a
 * million ping objects). Peak RSS per format: `npm run bench -- formats`.
 */
import { describe, it, expect } from 'vitest';
import { Readable } from 'node:stream';
import { readProbes } from './ingest.js';
import { pingAt, probeBody } from '../../../test/helpers/probe-bodies.js';

const N = 1_000_000;
/** Generous bound on memory growth while reading, bytes. */
const BOUND = 96 * 1024 * 1024;

const used = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

describe('streaming a million pings', () => {
  for (const format of ['json', 'ndjson'] as const) {
    it(`reads a ${format} body of 1M pings with memory growth under 96 MB`, async () => {
      const base = used();
      let peak = 0;
      let n = 0;
      let bytes = 0;
      let last: unknown;
      const body = Readable.from(
        (function* () {
          for (const b of probeBody(format, N)) {
            bytes += b.length;
            yield b;
          }
        })(),
      );
      for await (const r of readProbes(body, format, (i) => {
        throw new Error(`unexpected issue ${JSON.stringify(i)}`);
      })) {
        n++;
        last = r;
        if ((n & 0x3fff) === 0) peak = Math.max(peak, used() - base);
      }
      expect(n).toBe(N);
      expect(last).toEqual(pingAt(N - 1));
      expect(bytes).toBeGreaterThan(100e6);
      expect(peak).toBeLessThan(BOUND);
    });
  }
});
