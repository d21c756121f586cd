/**
 * `streetwise import` through commander with a real fixture file: writes the bundle under
 * <data-dir>/regions/<name>, prints a summary, and rejects bad input with a clear message.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { registerImport, regionNameOf } from '../../src/cli/import.js';
import type { CliDeps } from '../../src/cli/deps.js';
import { loadRegion } from '../../src/network/index.js';
import { OsmFixture } from './osm-fixture.js';

const tmp = mkdtempSync(join(tmpdir(), 'streetwise-import-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// 1 ——— 2 ——— 3 with a signal at 2
const osmPath = join(tmp, 'Tiny Town.osm');
writeFileSync(
  osmPath,
  new OsmFixture()
    .gridNode(1, 0, 0)
    .gridNode(2, 0, 1, { highway: 'traffic_signals' })
    .gridNode(3, 0, 2)
    .way(10, [1, 2, 3], { highway: 'primary', name: 'Main St' })
    .xml(),
);

function run(args: string[]): Promise<string> {
  let out = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  }) as unknown as NodeJS.WriteStream;
  const program = new Command('streetwise').exitOverride();
  const deps = {
    config: () => ({ store: { dataDir: join(tmp, 'data') } }),
    withDb: () => {
      throw new Error('import needs no database');
    },
  } as unknown as CliDeps;
  registerImport(program, deps, stream);
  return program.parseAsync(['node', 'streetwise', 'import', ...args]).then(() => out);
}

describe('streetwise import', () => {
  it('derives the region name from the file name', () => {
    expect(regionNameOf('/x/baltimore.osm.pbf')).toBe('baltimore');
    expect(regionNameOf('Tiny Town.osm')).toBe('tiny-town');
  });

  it('imports into <data-dir>/regions/<name> and prints the counts', async () => {
    const out = await run([osmPath]);
    expect(out).toMatch(
      /region "tiny-town" .*: 3 nodes, 4 edges \(4 routable\), 1 intersections \(1 signalized\), 2 blocks, 0 lots, 0 turn restrictions/,
    );
    const r = loadRegion(join(tmp, 'data', 'regions', 'tiny-town'));
    expect(r.graph.edgeCount).toBe(4);
  });

  it('honours --name and --data-dir', async () => {
    await run([osmPath, '--name', 'town_2', '--data-dir', join(tmp, 'other')]);
    expect(existsSync(join(tmp, 'other', 'regions', 'town_2', 'graph.bin'))).toBe(true);
  });

  it('rejects a missing file, a bad name and a file that is not OSM', async () => {
    await expect(run([join(tmp, 'nope.osm.pbf')])).rejects.toThrow(/file not found/);
    await expect(run([osmPath, '--name', '../evil'])).rejects.toThrow(/--name must match/);
    const gz = join(tmp, 'x.osm.gz');
    writeFileSync(gz, Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]));
    await expect(run([gz, '--name', 'gz'])).rejects.toThrow(/not an OSM PBF or OSM XML file/);
  });
});
