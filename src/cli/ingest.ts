/**
 * `streetwise ingest probes <file>`: stream a probe file (CSV, JSON lines or SUMO FCD XML; `.gz`
 * is decompressed; `-` reads stdin) into the database, then match the traces that got new pings
 * and update learned speeds. Progress bar on a terminal, log lines otherwise.
 */
import { createReadStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { Transform, type Readable } from 'node:stream';
import type { Command } from 'commander';
import { loadRegion } from '../network/bundle.js';
import { formatFromFileName, type IngestOptions } from '../probes/ingest/ingest.js';
import type { ProbeFormat } from '../probes/ingest/records.js';
import { parseTimestampS } from '../probes/ingest/records.js';
import { ingestAndProcess } from '../probes/pipeline.js';
import { refreshFactsAfterIngest } from '../app/facts-after-ingest.js';
import { SpeedFeeds } from '../traffic/feeds.js';
import type { CliDeps } from './deps.js';
import { createProgress } from './progress.js';

interface IngestCliOptions { format?: string; fcdStart?: string; tracePrefix?: string; batchSize: string }

/** Adds `ingest probes`. */
export function registerIngest(program: Command, deps: CliDeps): void {
  const ingest = program.command('ingest').description('ingest data into the database');
  ingest.command('probes <file>')
    .description('ingest GPS probe pings (CSV trace_id,timestamp,lat,lon[,speed,heading]; JSON lines; SUMO --fcd-output XML with --fcd-output.geo), map-match them and update learned speeds')
    .option('--format <format>', 'csv | jsonl | fcd (default: from the file extension)')
    .option('--fcd-start <time>', 'FCD only: ISO 8601 or unix time of simulation second 0 (default 2026-01-05T00:00:00Z)')
    .option('--trace-prefix <prefix>', 'FCD only: prefix for vehicle ids (to keep runs apart)')
    .option('--batch-size <n>', 'pings per database insert', '5000')
    .action(async (file: string, opts: IngestCliOptions) => {
      const format = (opts.format ?? (file === '-' ? undefined : formatFromFileName(file))) as ProbeFormat | undefined;
      if (format === undefined || !['csv', 'jsonl', 'fcd'].includes(format)) {
        throw new Error(`--format must be csv, jsonl or fcd${opts.format ? ` (got ${opts.format})` : ' (cannot tell from the file name)'}`);
      }
      const batchSize = Number(opts.batchSize);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) throw new Error('--batch-size must be an integer in 1..100000');
      const ingestOpts: IngestOptions = { format, batchSize, tracePrefix: opts.tracePrefix };
      if (opts.fcdStart !== undefined) {
        const s = parseTimestampS(opts.fcdStart);
        if (!Number.isFinite(s)) throw new Error(`--fcd-start ${opts.fcdStart} is not ISO 8601 or unix time`);
        ingestOpts.fcdStartS = s;
      }
      const config = deps.config();
      const region = loadRegion(join(config.store.dataDir, 'regions', config.region.name));
      const totalBytes = file === '-' ? undefined : statSync(file).size;
      let bytes = 0;
      const raw: Readable = file === '-' ? process.stdin : createReadStream(file);
      // Count bytes as they pass (a 'data' listener would start the stream before the parser reads it).
      const counted = raw.pipe(new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          done(null, chunk);
        },
      }));
      const input = file.endsWith('.gz') ? counted.pipe(createGunzip()) : counted;
      const bar = createProgress('ingest', 'bytes');
      ingestOpts.onProgress = () => bar.update(bytes, totalBytes);
      await deps.withDb(async (db) => {
        const t0 = Date.now();
        let matchBar: ReturnType<typeof createProgress> | undefined;
        const { ingest: rep, process: proc } = await ingestAndProcess({
          db, graph: region.graph, mapVersion: region.meta.mapVersion, timeZone: region.meta.timeZone,
          feeds: new SpeedFeeds(), nowS: Date.now() / 1000,
          onMatchProgress: (done, total) => {
            if (matchBar === undefined) {
              bar.update(bytes, totalBytes);
              bar.stop();
              matchBar = createProgress('match', 'traces');
            }
            matchBar.update(done, total);
          },
        }, input, ingestOpts);
        if (matchBar === undefined) {
          bar.update(bytes, totalBytes);
          bar.stop();
        } else matchBar.stop();
        console.log(`pings: ${rep.parsed} read, ${rep.inserted} new, ${rep.duplicates} already stored, ${rep.malformed} malformed`);
        for (const i of rep.issues.slice(0, 20)) console.log(`  line ${i.line}: ${i.message}`);
        if (rep.malformed > 20) console.log(`  … and ${rep.malformed - 20} more malformed rows`);
        console.log(`matched: ${proc.traces} traces → ${proc.trajectories} trajectories, ${proc.traversals} edge traversals, ${proc.unmatchedPings} pings off-road`);
        console.log(`learned speeds updated on ${proc.edgesUpdated} edges (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
        const facts = await refreshFactsAfterIngest(db, region, rep);
        console.log(`intersection facts: ${facts.facts} from ${facts.trajectories} trajectories`);
      });
    });
}
