/**
 * The architecture's import rules (docs/architecture.md, "Imports point one way"), checked on the source: kernels import
 * nothing of ours, domain modules never import http/ or cli/, a database driver or the config
 * loader, and the three services never import each other.
 */
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';

const SRC = resolve('src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

/** [file's top-level module, imported top-level module or package] for every import. */
function edges(): Array<{ file: string; from: string; to: string }> {
  const out: Array<{ file: string; from: string; to: string }> = [];
  for (const f of files(SRC)) {
    const from = relative(SRC, f).split('/')[0];
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
      const spec = m[1];
      const to = spec.startsWith('.') ? relative(SRC, resolve(dirname(f), spec)).split('/')[0] : `pkg:${spec}`;
      out.push({ file: relative(SRC, f), from, to });
    }
  }
  return out;
}

const ALLOWED: Record<string, string[]> = {
  geo: ['geo'],
  time: ['time'],
  config: ['config'],
  store: ['store'],
  search: ['search'],
  osm: ['osm', 'geo', 'time'],
  network: ['network', 'osm', 'geo', 'time'],
  traffic: ['traffic', 'network', 'geo', 'time', 'probes', 'store'],
  probes: ['probes', 'network', 'traffic', 'geo', 'time', 'store', 'search'],
  routing: ['routing', 'network', 'traffic', 'geo', 'time', 'store', 'search'],
  parking: ['parking', 'network', 'geo', 'time', 'store', 'auth'],
  analytics: ['analytics', 'network', 'probes', 'geo', 'time', 'store'],
  auth: ['auth', 'store'],
  demo: ['demo', 'network', 'osm', 'geo', 'time'],
  sim: ['sim', 'network', 'traffic', 'probes', 'geo', 'time', 'store', 'search'],
  tiles: ['tiles', 'network', 'traffic', 'geo', 'time'],
};

describe('import rules', () => {
  const all = edges();
  it('keeps every domain module within its allowed dependencies', () => {
    expect(all.filter((e) => e.from === 'routing' && e.to === 'network').length).toBeGreaterThan(0); // the scan sees imports
    const bad = all.filter((e) => ALLOWED[e.from] && !e.to.startsWith('pkg:') && !ALLOWED[e.from].includes(e.to));
    expect(bad.map((e) => `${e.file} imports ${e.to}/`)).toEqual([]);
  });
  it('keeps database drivers out of domain code (only store/ talks to pg and PGlite)', () => {
    const bad = all.filter(
      (e) => (e.to === 'pkg:pg' || e.to.startsWith('pkg:@electric-sql/pglite')) && e.from !== 'store',
    );
    expect(bad.map((e) => e.file)).toEqual([]);
  });
  it('reads process.env only in config/ and the CLI', () => {
    const bad = files(SRC).filter(
      (f) => /process\.env/.test(readFileSync(f, 'utf8')) && !/^(config|cli)\//.test(relative(SRC, f)),
    );
    expect(bad.map((f) => relative(SRC, f))).toEqual([]);
  });
});
