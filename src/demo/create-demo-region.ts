/**
 * The whole demo set-up in one call: write the demo city's files under `<dataDir>/demo/` and
 * import `demo.osm` as region `demo` under `<dataDir>/regions/demo` through the regular importer
 * (the same `importRegion` as `streetwise import`). Used by `streetwise demo` and suitable for the
 * first `serve` when no region exists.
 */
import { join } from 'node:path';
import { importRegion, type ImportProgress, type ImportSummary } from '../network/index.js';
import { writeDemo, type DemoPaths } from './write-demo.js';

/** Name of the demo region. */
export const DEMO_REGION_NAME = 'demo';

/** Options of `createDemoRegion`. */
export interface CreateDemoRegionOptions {
  /** seed of the city (default DEFAULT_DEMO_SEED) */
  seed?: number;
  /** called once the files are written, before the import starts */
  onWritten?: (paths: DemoPaths) => void;
  /** progress of the import stages (passed to `importRegion`) */
  onImportProgress?: ImportProgress;
}

/** What `createDemoRegion` produced: the two files, the region directory and the import summary. */
export interface DemoRegionResult extends DemoPaths {
  regionDir: string;
  imported: ImportSummary;
}

/**
 * Writes the demo files into `<dataDir>/demo/` and imports them as region `demo`
 * (replacing a previous demo region atomically).
 * @example const r = await createDemoRegion('./data', { seed: 42 }); console.log(r.imported.edges);
 */
export async function createDemoRegion(
  dataDir: string,
  options: CreateDemoRegionOptions = {},
): Promise<DemoRegionResult> {
  const paths = await writeDemo(join(dataDir, 'demo'), { seed: options.seed });
  options.onWritten?.(paths);
  const regionDir = join(dataDir, 'regions', DEMO_REGION_NAME);
  const imported = await importRegion(paths.osmPath, regionDir, {
    name: DEMO_REGION_NAME,
    onProgress: options.onImportProgress,
  });
  return { ...paths, regionDir, imported };
}
