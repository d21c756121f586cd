import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { loadConfig } from '../../src/config/load.js';
import type { CliDeps } from '../../src/cli/deps.js';
import { registerDemo } from '../../src/cli/demo.js';
import { generateDemoCity } from '../../src/demo/city.js';
import { writeMetro } from '../../src/demo/metro/metro.js';

/** A non-TTY stream collecting what the command prints. */
function captureStream(): { stream: NodeJS.WriteStream; text: () => string } {
  let out = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  });
  return { stream: w as unknown as NodeJS.WriteStream, text: () => out };
}

function program(dataDir: string, stream: NodeJS.WriteStream): Command {
  const deps: CliDeps = {
    config: () => loadConfig({ 'store.dataDir': dataDir }, {}),
    withDb: () => {
      throw new Error('streetwise demo needs no database');
    },
    server: async () => undefined,
    regionGiven: () => false,
  };
  const p = new Command('streetwise').exitOverride();
  registerDemo(p, deps, stream);
  return p;
}

describe('streetwise demo', () => {
  it('writes demo.osm and parking-upload.json for the seed and imports region "demo", with log lines off a terminal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-demo-cli-'));
    try {
      const out = captureStream();
      await program(dir, out.stream).parseAsync(['node', 'streetwise', 'demo', '--seed', '5'], { from: 'node' });
      const xml = readFileSync(join(dir, 'demo', 'demo.osm'), 'utf8');
      expect(xml).toBe(generateDemoCity({ seed: 5 }).osmXml);
      const upload = JSON.parse(readFileSync(join(dir, 'demo', 'parking-upload.json'), 'utf8'));
      expect(Object.keys(upload)).toEqual(['lots', 'products']);
      expect(existsSync(join(dir, 'regions', 'demo', 'region.json'))).toBe(true);
      expect(out.text()).toMatch(/demo: generating Port Calvert \(seed 5\)/);
      expect(out.text()).toMatch(/demo: region "demo" in .*: \d+ nodes, \d+ edges/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('only writes the files with --no-import and uses the configured default seed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-demo-cli-'));
    try {
      const out = captureStream();
      await program(dir, out.stream).parseAsync(['node', 'streetwise', 'demo', '--no-import'], { from: 'node' });
      expect(readFileSync(join(dir, 'demo', 'demo.osm'), 'utf8')).toBe(generateDemoCity({ seed: 42 }).osmXml);
      expect(existsSync(join(dir, 'regions', 'demo'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a seed that is not a non-negative integer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-demo-cli-'));
    try {
      const out = captureStream();
      await expect(
        program(dir, out.stream).parseAsync(['node', 'streetwise', 'demo', '--seed', 'x1'], { from: 'node' }),
      ).rejects.toThrow(/--seed must be an integer/);
      expect(existsSync(join(dir, 'demo'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes the metro to --out and imports it as region "metro" with --size metro', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-demo-cli-'));
    try {
      const out = captureStream();
      const file = join(dir, 'm.osm.pbf');
      await program(dir, out.stream).parseAsync(
        ['node', 'streetwise', 'demo', '--size', 'metro', '--edges', '3000', '--seed', '2', '--out', file],
        { from: 'node' },
      );
      const want = mkdtempSync(join(tmpdir(), 'sw-demo-cli-'));
      writeMetro(join(want, 'm.osm.pbf'), { seed: 2, edges: 3000 });
      expect(readFileSync(file).equals(readFileSync(join(want, 'm.osm.pbf')))).toBe(true);
      rmSync(want, { recursive: true, force: true });
      expect(existsSync(join(dir, 'regions', 'metro', 'region.json'))).toBe(true);
      expect(out.text()).toMatch(/demo: Greater Calvert \(seed 2\): \d+ × \d+ km, \d+ directed edges/);
      expect(out.text()).toMatch(/demo: region "metro" in .*: \d+ nodes, \d+ edges \(\d+ routable\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a bad size, a bad edge count, an --out that is no OSM file, and metro options for the city', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-demo-cli-'));
    try {
      const run = (...args: string[]) =>
        program(dir, captureStream().stream).parseAsync(['node', 'streetwise', 'demo', ...args], { from: 'node' });
      await expect(run('--size', 'town')).rejects.toThrow(/--size must be city or metro/);
      await expect(run('--size', 'metro', '--edges', '12x')).rejects.toThrow(/--edges must be an integer/);
      await expect(run('--size', 'metro', '--edges', '10')).rejects.toThrow(/--edges must be an integer/);
      await expect(run('--size', 'metro', '--out', join(dir, 'm.txt'))).rejects.toThrow(/--out must end in/);
      await expect(run('--edges', '5000')).rejects.toThrow(/apply to --size metro only/);
      expect(existsSync(join(dir, 'demo'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
