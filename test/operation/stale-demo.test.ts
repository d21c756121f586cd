/**
 * The demo city is generated data: a demo bundle imported by an older version (another layout) is
 * generated again at start instead of refused; an imported region of an older layout is refused
 * with the fix.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { regionIsCurrent } from '../../src/network/index.js';
import { loadConfig } from '../../src/config/load.js';
import { bootstrap } from '../../src/app/bootstrap.js';

/** Marks the bundle in `regionDir` as written by an older layout. */
function age(regionDir: string): void {
  const path = join(regionDir, 'region.json');
  const head = JSON.parse(readFileSync(path, 'utf8')) as { formatVersion: number };
  writeFileSync(path, JSON.stringify({ ...head, formatVersion: head.formatVersion - 1 }));
}

describe('a region bundle of an older layout', () => {
  it('is generated again for the demo, and refused with the fix for an imported region', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'streetwise-stale-'));
    try {
      const { regionDir } = await createDemoRegion(dataDir);
      age(regionDir);
      expect(regionIsCurrent(regionDir)).toBe(false);
      const lines: string[] = [];
      const config = loadConfig({ 'store.dataDir': dataDir, 'region.name': 'demo' }, { DEMO_SIMULATE: 'false' });
      const started = await bootstrap(config, (l) => lines.push(l));
      await started.close();
      expect(lines.join('\n')).toMatch(/imported by an older version of streetwise: generating it again/);
      expect(regionIsCurrent(regionDir)).toBe(true);

      age(regionDir);
      const imported = loadConfig(
        { 'store.dataDir': dataDir, 'region.name': 'demo' },
        { DEMO_SIMULATE: 'false', DEMO_IF_MISSING: 'false' },
      );
      await expect(bootstrap(imported, () => undefined)).rejects.toThrow(/re-run `streetwise import`/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
