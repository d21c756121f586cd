/**
 * The preparing thread (`app/serving/prepare-worker.ts`): it hands back the shared structures in
 * shared memory, and a failure inside it reaches the caller as the thread's own error.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../src/config/schema.js';
import { encodeGraph } from '../../src/network/bundle.js';
import { prepareShared } from '../../src/app/serving/serving-threads.js';
import { signalizedGrid } from './fixtures.js';
import { typedArrays } from '../helpers/typed-arrays.js';

function sharedGraphBytes(): Uint8Array {
  const bytes = encodeGraph(signalizedGrid(8, 4).graph);
  const out = new Uint8Array(new SharedArrayBuffer(bytes.length));
  out.set(bytes);
  return out;
}

describe('the preparing thread', () => {
  it('hands back the routing structures with every array in shared memory, and no parking base when parking is not served', async () => {
    const config = { server: { services: ['routing'] } } as unknown as Config;
    const { routing, parking } = await prepareShared({
      config,
      regionDir: '/nonexistent',
      graphBytes: sharedGraphBytes(),
    });
    expect(parking).toBeUndefined();
    const arrays = typedArrays(routing);
    expect(arrays.length).toBeGreaterThan(20);
    for (const a of arrays) expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it("rejects with the thread's own error when a region part cannot be read", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prepare-thread-'));
    try {
      const config = { server: { services: ['parking'] } } as unknown as Config;
      await expect(prepareShared({ config, regionDir: dir, graphBytes: sharedGraphBytes() })).rejects.toThrow(
        /no region bundle/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
