/**
 * `streetwise demo [--seed N] [--data-dir DIR] [--no-import]`: generates the demo city
 * "Port Calvert" as OSM data (`<data-dir>/demo/demo.osm` and `parking-upload.json`) and imports it
 * as region `demo` (`<data-dir>/regions/demo`) through the regular importer.
 * `streetwise demo --size metro [--edges N] [--out FILE]`: generates the metro "Greater Calvert"
 * (`metro-cli.ts`).
 */
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import type { ImportStage } from '../network/index.js';
import { createDemoRegion } from '../demo/create-demo-region.js';
import { writeDemo, type DemoPaths } from '../demo/write-demo.js';
import { DEFAULT_METRO_EDGES } from '../demo/metro/metro.js';
import type { CliDeps } from './deps.js';
import { runMetro } from './metro-cli.js';
import { createProgress, type Progress } from './progress.js';

/** Largest accepted seed (the generator's state is 32 bits). */
const MAX_SEED = 2 ** 32 - 1;

/** Adds `streetwise demo` to the program; progress and the result go to `stream`. */
export function registerDemo(program: Command, deps: CliDeps, stream: NodeJS.WriteStream = process.stderr): void {
  program
    .command('demo')
    .description(
      'generate the demo city "Port Calvert" (same seed → identical files) as OSM data into <data-dir>/demo ' +
        '(demo.osm, parking-upload.json) and import it as region "demo" into <data-dir>/regions/demo',
    )
    .option('--seed <n>', `seed of the generated city, 0..${MAX_SEED} (default: DEMO_SEED or 42)`)
    .option('--data-dir <dir>', 'data directory (overrides the global --data-dir / DATA_DIR)')
    .option('--no-import', 'only write the files, do not import them')
    .option(
      '--size <size>',
      'city: the demo city (default); metro: the metro "Greater Calvert", a motorway ring and radials, ' +
        'signalised arterials every kilometre, local streets, a river, written as one OSM file',
      'city',
    )
    .option(
      '--edges <n>',
      `metro only: directed routable edges wanted (default ${DEFAULT_METRO_EDGES}); the file has at least as many`,
    )
    .option(
      '--out <file>',
      'metro only: file to write, .osm.pbf (PBF) or .osm (OSM XML) (default: <data-dir>/demo/metro.osm.pbf); ' +
        'imported as region "metro" unless --no-import',
    )
    .action(
      async (opts: {
        seed?: string;
        dataDir?: string;
        import: boolean;
        size: string;
        edges?: string;
        out?: string;
      }) => {
        const seed = opts.seed === undefined ? deps.config().region.demoSeed : parseSeed(opts.seed);
        const dataDir = opts.dataDir ?? deps.config().store.dataDir;
        if (opts.size !== 'city' && opts.size !== 'metro')
          throw new Error(`--size must be city or metro (got "${opts.size}")`);
        if (opts.size === 'metro') {
          await runMetro({ seed, dataDir, edges: opts.edges, out: opts.out, import: opts.import }, stream);
          return;
        }
        if (opts.edges !== undefined || opts.out !== undefined)
          throw new Error('--edges and --out apply to --size metro only');
        await runCity(seed, dataDir, opts.import, stream);
      },
    );
}

/** Writes the demo city's files and, when `doImport`, imports them as region "demo"; reports to `stream`. */
async function runCity(seed: number, dataDir: string, doImport: boolean, stream: NodeJS.WriteStream): Promise<void> {
  const started = Date.now();
  const log = (msg: string): void => {
    if (!stream.isTTY) stream.write(`${msg}\n`);
  };
  log(`demo: generating Port Calvert (seed ${seed})`);
  const written = (p: DemoPaths): void => {
    log(`demo: wrote ${p.osmPath} and ${p.uploadPath}`);
  };
  if (!doImport) {
    const paths = await writeDemo(join(dataDir, 'demo'), { seed });
    written(paths);
    report(stream, paths, Date.now() - started);
    return;
  }
  let bar: Progress | undefined;
  let current: ImportStage | undefined;
  const result = await createDemoRegion(dataDir, {
    seed,
    onWritten: (paths) => {
      written(paths);
      log('demo: importing region "demo"');
    },
    onImportProgress: (stage, done, total) => {
      if (stage !== current) {
        bar?.stop();
        current = stage;
        bar = createProgress(`demo: ${stage}`, stage === 'read' ? 'bytes' : 'steps', stream);
      }
      bar?.update(done, total);
    },
  });
  bar?.stop();
  const s = result.imported;
  report(stream, result, Date.now() - started);
  stream.write(
    `demo: region "demo" in ${result.regionDir}: ${s.nodes} nodes, ${s.edges} edges (${s.routableEdges} routable), ` +
      `${s.intersections} intersections (${s.signals} signalized), ${s.blocks} blocks, ${s.lots} lots, ` +
      `${s.restrictions} turn restrictions\n`,
  );
}

function report(stream: NodeJS.WriteStream, paths: DemoPaths, durationMs: number): void {
  const s = paths.summary;
  const restrictions = Object.values(s.restrictions).reduce((a, b) => a + b, 0);
  stream.write(
    `demo: Port Calvert (seed ${s.seed}): ${s.nodes} nodes, ${s.ways} ways (${s.roadWays} roads, ${s.streetNames} street names), ` +
      `${s.trafficSignals} signals, ${s.tollWays} toll ways, ${s.ferryWays} ferry, ${restrictions} turn restrictions, ` +
      `${s.lotWays + s.lotNodes} lots, ${s.uploadProducts} products; files in ${dirname(paths.osmPath)} (${durationMs} ms)\n`,
  );
}

function parseSeed(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(n) || n > MAX_SEED) {
    throw new Error(`--seed must be an integer from 0 to ${MAX_SEED} (got "${s}")`);
  }
  return n;
}
