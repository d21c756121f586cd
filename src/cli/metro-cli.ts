/**
 * `streetwise demo --size metro [--edges N] [--out FILE] [--seed N] [--no-import]`: writes the
 * generated metro as one OSM file and imports it as region `metro` through the regular importer.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_METRO_EDGES, MAX_METRO_EDGES, MIN_METRO_EDGES, writeMetro } from '../demo/metro/metro.js';
import { importRegion } from '../network/index.js';

/** Name of the region the metro is imported as. */
export const METRO_REGION_NAME = 'metro';

/** Options of `runMetro`, as given on the command line. */
export interface MetroCliOptions {
  seed: number;
  dataDir: string;
  edges?: string;
  out?: string;
  import: boolean;
}

/** Generates the metro (and imports it unless `import` is false), reporting to `stream`. */
export async function runMetro(opts: MetroCliOptions, stream: NodeJS.WritableStream): Promise<void> {
  const edges = opts.edges === undefined ? DEFAULT_METRO_EDGES : parseEdges(opts.edges);
  const out = opts.out ?? join(opts.dataDir, 'demo', 'metro.osm.pbf');
  if (!out.endsWith('.osm.pbf') && !out.endsWith('.osm'))
    throw new Error(`--out must end in .osm.pbf or .osm (got "${out}")`);
  mkdirSync(dirname(out), { recursive: true });
  const t0 = Date.now();
  stream.write(`demo: generating the metro (seed ${opts.seed}, at least ${edges} directed edges)\n`);
  const s = writeMetro(out, { seed: opts.seed, edges });
  const mb = (statSync(out).size / 1e6).toFixed(1);
  const restrictions = Object.values(s.restrictions).reduce((a, b) => a + b, 0);
  stream.write(
    `demo: ${s.name} (seed ${s.seed}): ${s.cells} × ${s.cells} km, ${s.directedEdges} directed edges, ` +
      `${s.graphNodes} graph nodes, ${s.nodes} nodes, ${s.roadWays} road ways, ${s.trafficSignals} signals, ` +
      `${s.motorwayInterchanges} motorway interchanges, ${restrictions} turn restrictions, ${s.parkingLots} lots; ` +
      `${out} (${mb} MB, ${Date.now() - t0} ms)\n`,
  );
  if (!opts.import) return;
  const dir = join(opts.dataDir, 'regions', METRO_REGION_NAME);
  stream.write(`demo: importing region "${METRO_REGION_NAME}"\n`);
  const r = await importRegion(out, dir, { name: METRO_REGION_NAME });
  stream.write(
    `demo: region "${METRO_REGION_NAME}" in ${dir}: ${r.nodes} nodes, ${r.edges} edges (${r.routableEdges} routable), ` +
      `${r.intersections} intersections (${r.signals} signalized), ${r.blocks} blocks, ${r.lots} lots in ${r.durationMs} ms\n`,
  );
}

function parseEdges(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < MIN_METRO_EDGES || n > MAX_METRO_EDGES)
    throw new Error(`--edges must be an integer from ${MIN_METRO_EDGES} to ${MAX_METRO_EDGES} (got "${s}")`);
  return n;
}
