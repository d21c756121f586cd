/**
 * The region a CLI command acts on: the one named with --region (or REGION); else the one the
 * running server serves; else the only region imported. Several regions and no name is an error,
 * never a silent choice.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadRegion, regionExists } from '../network/index.js';
import type { Region } from '../network/region.js';
import type { CliDeps } from './deps.js';

/** Names of the regions imported under the data directory. */
export function importedRegions(dataDir: string): string[] {
  const dir = join(dataDir, 'regions');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => !n.startsWith('.') && regionExists(join(dir, n)))
    .sort();
}

/** The name of the region the command acts on (see the module comment). */
export async function chosenRegionName(deps: CliDeps): Promise<string> {
  const config = deps.config();
  const server = await deps.server();
  if (deps.regionGiven()) {
    if (server && server.region !== config.region.name) {
      throw new Error(
        `the server at ${server.url} owns the database and serves region "${server.region}", not "${config.region.name}": stop it to work on "${config.region.name}"`,
      );
    }
    return config.region.name;
  }
  if (server) return server.region;
  const names = importedRegions(config.store.dataDir);
  if (names.length > 1)
    throw new Error(
      `${names.length} regions are imported (${names.join(', ')}): name the one to act on with --region NAME (or REGION=NAME)`,
    );
  return names.length === 1 ? names[0] : config.region.name;
}

/** Loads the region the command acts on. */
export async function chosenRegion(deps: CliDeps): Promise<Region> {
  const name = await chosenRegionName(deps);
  const dir = join(deps.config().store.dataDir, 'regions', name);
  if (!regionExists(dir))
    throw new Error(
      `region "${name}" is not imported (${dir}): import it with \`streetwise import <file.osm.pbf> --name ${name}\``,
    );
  return loadRegion(dir);
}
