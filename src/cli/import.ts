/**
 * `streetwise import <file> [--name NAME]`: imports an OSM extract (.osm.pbf or OSM XML .osm) into
 * the region bundle `<data-dir>/regions/<name>/`, replacing a previous import atomically.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import { importRegion } from '../network/index.js';
import type { ImportStage } from '../network/index.js';
import type { CliDeps } from './deps.js';
import { createProgress } from './progress.js';
import type { Progress } from './progress.js';

const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Region name derived from a file name: "baltimore.osm.pbf" → "baltimore". */
export function regionNameOf(file: string): string {
  return (
    basename(file)
      .replace(/\.(osm\.pbf|pbf|osm|xml)$/i, '')
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+/, '') || 'region'
  );
}

/** Adds `streetwise import <file> [--name NAME] [--data-dir DIR]` to the program. */
export function registerImport(program: Command, deps: CliDeps, stream: NodeJS.WriteStream = process.stderr): void {
  program
    .command('import')
    .description(
      'import an OpenStreetMap extract (.osm.pbf or .osm XML) as a region bundle under <data-dir>/regions/<name>',
    )
    .argument('<file>', 'OSM file: .osm.pbf or OSM XML (.osm)')
    .option(
      '--name <name>',
      'region name (default: the file name without extension); lowercase letters, digits, - and _',
    )
    .option('--data-dir <dir>', 'data directory (overrides the global --data-dir / DATA_DIR)')
    .action(async (file: string, opts: { name?: string; dataDir?: string }) => {
      if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`import: file not found: ${file}`);
      const name = opts.name ?? regionNameOf(file);
      if (!NAME_PATTERN.test(name)) throw new Error(`--name must match ${NAME_PATTERN} (got "${name}")`);
      const dataDir = opts.dataDir ?? deps.config().store.dataDir;
      const outDir = join(dataDir, 'regions', name);
      // a bar (or rate-limited log lines) while reading the file, one line per later stage
      const bar: Progress = createProgress('import: read', 'bytes', stream);
      let stageStart = Date.now();
      let reading = true;
      const summary = await importRegion(file, outDir, {
        name,
        onProgress: (stage: ImportStage, done, total) => {
          if (stage === 'read') {
            bar.update(done, total);
            return;
          }
          if (reading) {
            bar.stop();
            reading = false;
          }
          if (done === 0) stageStart = Date.now();
          else stream.write(`import: ${stage} done in ${Date.now() - stageStart} ms\n`);
        },
      });
      if (reading) bar.stop();
      stream.write(
        `import: region "${name}" in ${summary.dir}: ${summary.nodes} nodes, ${summary.edges} edges ` +
          `(${summary.routableEdges} routable), ${summary.intersections} intersections (${summary.signals} signalized), ` +
          `${summary.blocks} blocks, ${summary.lots} lots, ${summary.restrictions} turn restrictions in ${summary.durationMs} ms\n`,
      );
    });
}
