/**
 * The whole demo set-up in one call: write the demo city's files under `<dataDir>/demo/` and
 * import `demo.osm` as region `demo` under `<dataDir>/regions/demo` through the regular importer.
 * Used by `streetwise demo` and by the first `serve` when no region exists.
 */
import { join } from 'node:path';
import { writeDemo, type DemoPaths } from './write-demo.js';

/** Name of the demo region. */
export const DEMO_REGION_NAME = 'demo';

/** Signature of the region importer (`importRegion` of `src/network/index.ts`). */
export type ImportRegionFn = (inputPath: string, outDir: string, opts: { name: string }) => Promise<unknown>;

/** Steps reported through `onStep`, in order. */
export type DemoStep = 'generate' | 'import' | 'done';

/** Options of `createDemoRegion`. */
export interface CreateDemoRegionOptions {
  seed?: number;
  /** the importer to use (default: `importRegion` from the network module) */
  importRegion?: ImportRegionFn;
  /** called when a step starts (and once with 'done') */
  onStep?: (step: DemoStep, paths?: DemoPaths) => void;
}

/** What `createDemoRegion` produced. */
export interface DemoRegionResult extends DemoPaths {
  regionDir: string;
  /** whatever the importer returned (its summary of the region) */
  imported: unknown;
}

/**
 * Writes the demo files into `<dataDir>/demo/` and imports them as region `demo`.
 * @example await createDemoRegion('./data', { seed: 42 });
 */
export async function createDemoRegion(dataDir: string, options: CreateDemoRegionOptions = {}): Promise<DemoRegionResult> {
  options.onStep?.('generate');
  const paths = await writeDemo(join(dataDir, 'demo'), { seed: options.seed });
  options.onStep?.('import', paths);
  const regionDir = join(dataDir, 'regions', DEMO_REGION_NAME);
  const importRegion = options.importRegion ?? (await loadImporter());
  const imported = await importRegion(paths.osmPath, regionDir, { name: DEMO_REGION_NAME });
  options.onStep?.('done', paths);
  return { ...paths, regionDir, imported };
}

async function loadImporter(): Promise<ImportRegionFn> {
  // resolved at run time: the importer lives in the network module's entry point
  const specifier = '../network/index.js';
  const mod = (await import(specifier)) as { importRegion?: ImportRegionFn };
  if (typeof mod.importRegion !== 'function') throw new Error('the network module exports no importRegion()');
  return mod.importRegion;
}
