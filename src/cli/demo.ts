/**
 * `streetwise demo`: generates the demo city "Port Calvert" as OSM data
 * (`<data-dir>/demo/demo.osm` and `parking-upload.json`) and imports it as region `demo`
 * (`<data-dir>/regions/demo`) through the regular importer.
 */
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { createDemoRegion, type ImportRegionFn } from '../demo/create-demo-region.js';
import { writeDemo } from '../demo/write-demo.js';
import type { CliDeps } from './deps.js';
import { createProgress } from './progress.js';

/** Extra hooks for tests: a different importer or output stream. */
export interface DemoCliOptions {
  importRegion?: ImportRegionFn;
  stream?: NodeJS.WriteStream;
}

/** Adds `streetwise demo [--seed N] [--no-import]` to the program. */
export function registerDemo(program: Command, deps: CliDeps, hooks: DemoCliOptions = {}): void {
  program
    .command('demo')
    .description(
      'generate the demo city "Port Calvert" (deterministic for a seed) as OSM data into <data-dir>/demo ' +
      '(demo.osm, parking-upload.json) and import it as region "demo" into <data-dir>/regions/demo; ' +
      'the data directory comes from the global --data-dir / DATA_DIR',
    )
    .option('--seed <n>', 'seed of the generated city (default: DEMO_SEED, 42)')
    .option('--no-import', 'only write the files, do not import them')
    .action(async (opts: { seed?: string; import: boolean }) => {
      const config = deps.config();
      const seed = opts.seed === undefined ? config.region.demoSeed : parseSeed(opts.seed);
      const stream = hooks.stream ?? process.stderr;
      const steps = opts.import ? 2 : 1;
      const progress = createProgress('demo', 'steps', stream);
      progress.update(0, steps);
      const log = (msg: string): void => {
        if (!stream.isTTY) stream.write(msg + '\n');
      };
      const started = Date.now();
      let result;
      if (opts.import) {
        result = await createDemoRegion(config.store.dataDir, {
          seed,
          importRegion: hooks.importRegion,
          onStep: (step, paths) => {
            if (step === 'generate') log(`demo: generating Port Calvert (seed ${seed})`);
            if (step === 'import' && paths) {
              progress.update(1, steps);
              log(`demo: wrote ${paths.osmPath} and ${paths.uploadPath}; importing region "demo"`);
            }
            if (step === 'done') progress.update(2, steps);
          },
        });
      } else {
        log(`demo: generating Port Calvert (seed ${seed})`);
        result = await writeDemo(join(config.store.dataDir, 'demo'), { seed });
        progress.update(1, steps);
      }
      progress.stop();
      const s = result.summary;
      stream.write(
        `demo: ${s.nodes} nodes, ${s.ways} ways (${s.roadWays} roads), ${s.trafficSignals} signals, ` +
        `${s.tollWays} toll ways, ${s.ferryWays} ferry, ${Object.values(s.restrictions).reduce((a, b) => a + b, 0)} turn restrictions, ` +
        `${s.lotWays + s.lotNodes} lots, ${s.uploadProducts} products in ${Date.now() - started} ms\n` +
        `demo: files in ${dirname(result.osmPath)}` +
        ('regionDir' in result ? `, region in ${result.regionDir}` : '') + '\n',
      );
    });
}

function parseSeed(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(n) || n > 2 ** 32 - 1) {
    throw new Error(`--seed must be an integer from 0 to ${2 ** 32 - 1}, got "${s}"`);
  }
  return n;
}
