import { describe, it, expect } from 'vitest';
import { MatchThread } from './match-thread.js';

describe('the matching helper thread', () => {
  it('fails the requests of a thread that cannot start, and starts a new one for the next', async () => {
    // not a graph file: the thread fails as it starts
    const t = new MatchThread({ graphBytes: new Uint8Array(new SharedArrayBuffer(64)) });
    const trace = { traceId: 'a', pings: [{ tS: 0, lat: 0, lon: 0 }], firstPart: 0, firstIndex: 0 };
    try {
      await expect(t.match([trace])).rejects.toThrow(/the matching helper thread (failed|stopped)/);
      await expect(t.match([trace])).rejects.toThrow(/the matching helper thread (failed|stopped)/);
      expect(t.traces).toBe(0);
    } finally {
      await t.close();
    }
  });
});
