/**
 * Writes the demo city to a directory: `demo.osm` (OSM XML, imported like any extract) and
 * `parking-upload.json` (operator upload for `streetwise parking load`).
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateDemoCity, type DemoCitySummary } from './city.js';

/** File name of the generated OSM document. */
export const DEMO_OSM_FILE = 'demo.osm';
/** File name of the generated operator upload. */
export const DEMO_UPLOAD_FILE = 'parking-upload.json';

/** Paths written by `writeDemo`, with the generator's summary. */
export interface DemoPaths {
  osmPath: string;
  uploadPath: string;
  summary: DemoCitySummary;
}

/**
 * Generates the demo city for `seed` and writes both files into `dir` (created if missing).
 * Each file is written to a temporary name first and renamed, so a reader never sees half a file.
 * @example const { osmPath } = await writeDemo('data/demo', { seed: 42 });
 */
export async function writeDemo(dir: string, options: { seed?: number } = {}): Promise<DemoPaths> {
  const city = generateDemoCity(options);
  await mkdir(dir, { recursive: true });
  const osmPath = join(dir, DEMO_OSM_FILE);
  const uploadPath = join(dir, DEMO_UPLOAD_FILE);
  await writeAtomically(osmPath, city.osmXml);
  await writeAtomically(uploadPath, `${JSON.stringify(city.parkingUpload, null, 2)}\n`);
  return { osmPath, uploadPath, summary: city.summary };
}

async function writeAtomically(path: string, content: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, content, 'utf8');
  await rename(tmp, path);
}
