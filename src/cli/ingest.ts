/**
 * `streetwise ingest probes <file>`: stream a probe file (JSON, NDJSON, CSV or SUMO FCD XML;
 * `.gz` is decompressed; `-` reads stdin) into the probe sink, then wait until the traces that got
 * new pings are processed (map matching, learned and live speeds, intersection facts) by the
 * region's ingestion workers, or process them here when none runs.
 * `streetwise ingest probes --from nats://… --subject …`: consume a NATS JetStream subject instead
 * (`nats-ingest.ts`). Progress with totals and time left on a terminal, log lines otherwise.
 */
import { createReadStream, statSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { Transform, type Readable } from 'node:stream';
import type { Command } from 'commander';
import { formatFromFileName, readProbes, type ReadProbesOptions } from '../probes/ingest/ingest.js';
import { parseColumnMapping } from '../probes/ingest/csv-mapping.js';
import { ProbeFormatError } from '../probes/ingest/errors.js';
import { parseTimestampS, probeFormatFromName, type ParseIssue } from '../probes/ingest/records.js';
import type { CliDeps } from './deps.js';
import { chosenRegion } from './region-choice.js';
import { createProgress } from './progress.js';
import { processedLines, processWithProgress, storeAll, withProbeSink, type StoreTotals } from './probe-sink-cli.js';
import { ingestFromNats, natsOptionsFrom, type NatsCliOptions } from './nats-ingest.js';

interface IngestCliOptions extends NatsCliOptions {
  format?: string;
  columns?: string;
  header?: boolean;
  fcdStart?: string;
  tracePrefix?: string;
  batchSize: string;
}

/** Most malformed rows listed (all are counted). */
const ISSUES_SHOWN = 20;

/** Adds `ingest probes`. */
export function registerIngest(program: Command, deps: CliDeps): void {
  const ingest = program.command('ingest').description('ingest data into the database');
  ingest
    .command('probes [file]')
    .description(
      'ingest GPS probe pings from a file (JSON {"pings":[…]} or array, NDJSON, CSV with a header, SUMO --fcd-output XML with --fcd-output.geo) or from a NATS JetStream subject (--from), map-match them and update learned speeds and intersection facts',
    )
    .option('--format <format>', 'json | ndjson (or jsonl) | csv | fcd (default: from the file extension)')
    .option(
      '--columns <mapping>',
      'CSV: field=column[:unit],… with fields trace,time,lat,lon,speed,heading; a column is a header name or a 1-based number; time units iso|s|ms, speed units mps|kph|mph|knots; speed=- skips a speed column (e.g. trace=vehicle,time=ts:ms,lat=y,lon=x,speed=v:mps,heading=dir)',
    )
    .option('--header', 'CSV: the first row is a header (default: detected)')
    .option('--no-header', 'CSV: the first row is data')
    .option(
      '--fcd-start <time>',
      'FCD only: ISO 8601 or unix time of simulation second 0 (default 2026-01-05T00:00:00Z)',
    )
    .option('--trace-prefix <prefix>', 'FCD only: prefix for vehicle ids (to keep runs apart)')
    .option('--batch-size <n>', 'pings per store call', '5000')
    .option('--from <url>', 'consume a NATS JetStream subject instead of a file, e.g. nats://127.0.0.1:4222')
    .option('--subject <subject>', 'NATS: subject the pings are published on (required with --from)')
    .option(
      '--stream <name>',
      'NATS: JetStream stream (default: the stream capturing the subject; created as PROBES when none does)',
    )
    .option('--durable <name>', 'NATS: durable consumer name; a restart resumes where it stopped', 'streetwise-probes')
    .option('--batch <n>', 'NATS: messages per pull', '100')
    .option('--ack-wait <s>', 'NATS: seconds before an unacknowledged message is redelivered', '10')
    .option('--flush-every <s>', 'NATS: process stored pings at least every this many seconds', '10')
    .option('--flush-pings <n>', 'NATS: … or after this many new pings', '50000')
    .option('--until-idle <s>', 'NATS: stop once no message arrived for this many seconds and none is pending')
    .action(async (file: string | undefined, opts: IngestCliOptions) => {
      if (opts.from !== undefined) {
        if (file !== undefined) throw new Error('give either a file or --from, not both');
        const nats = natsOptionsFrom(opts);
        const region = await chosenRegion(deps);
        await withProbeSink(deps, region, (sink) => ingestFromNats(sink, nats));
        return;
      }
      if (file === undefined) throw new Error('give a probe file (or - for stdin), or --from nats://… --subject …');
      await ingestFile(deps, file, opts);
    });
}

/**
 * A reader message in the CLI's syntax: the HTTP form `columns=time=<name>` becomes
 * `--columns 'time=<name>'`, `header=true` `--header`.
 */
export function inCliSyntax(message: string): string {
  return message
    .replace(/\bcolumns=([^\s;()]+)/g, (_m, mapping: string) => `--columns '${mapping}'`)
    .replace(/\bheader=(true|false)\b/g, (_m, v: string) => (v === 'true' ? '--header' : '--no-header'));
}

/** Reader options from the CLI flags, checked before anything is read. */
function readOptions(opts: IngestCliOptions): ReadProbesOptions {
  const o: ReadProbesOptions = { tracePrefix: opts.tracePrefix, header: opts.header };
  if (opts.columns !== undefined) o.columns = parseColumnMapping(opts.columns);
  if (opts.fcdStart !== undefined) {
    const s = parseTimestampS(opts.fcdStart);
    if (!Number.isFinite(s)) throw new Error(`--fcd-start ${opts.fcdStart} is not ISO 8601 or unix time`);
    o.fcdStartS = s;
  }
  return o;
}

async function ingestFile(deps: CliDeps, file: string, opts: IngestCliOptions): Promise<void> {
  const format =
    opts.format !== undefined ? probeFormatFromName(opts.format) : file === '-' ? undefined : formatFromFileName(file);
  if (format === undefined) {
    throw new Error(
      `--format must be json, ndjson (jsonl), csv or fcd${opts.format ? ` (got ${opts.format})` : ' (cannot tell from the file name)'}`,
    );
  }
  if (format !== 'csv' && (opts.columns !== undefined || opts.header !== undefined))
    throw new Error('--columns and --header apply to CSV files only');
  const batchSize = Number(opts.batchSize);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000)
    throw new Error('--batch-size must be an integer in 1..100000');
  const readOpts = readOptions(opts);
  const region = await chosenRegion(deps);
  const totalBytes = file === '-' ? undefined : statSync(file).size;
  let bytes = 0;
  const raw: Readable = file === '-' ? process.stdin : createReadStream(file);
  // Count bytes as they pass (a 'data' listener would start the stream before the parser reads it).
  const counted = raw.pipe(
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done(null, chunk);
      },
    }),
  );
  const input = file.endsWith('.gz') ? counted.pipe(createGunzip()) : counted;
  const issues: ParseIssue[] = [];
  let malformed = 0;
  const onIssue = (i: ParseIssue): void => {
    malformed++;
    if (issues.length < ISSUES_SHOWN) issues.push(i);
  };
  await withProbeSink(deps, region, async (sink) => {
    const t0 = Date.now();
    const bar = createProgress('read', 'bytes');
    bar.update(0, totalBytes);
    let stored: StoreTotals;
    try {
      stored = await storeAll(sink, readProbes(input, format, onIssue, readOpts), batchSize, () =>
        bar.update(bytes, totalBytes),
      );
      bar.update(bytes, totalBytes);
    } catch (err) {
      if (err instanceof ProbeFormatError) throw new Error(inCliSyntax(err.message));
      throw err;
    } finally {
      bar.stop();
    }
    console.log(
      `pings: ${stored.read} read, ${stored.inserted} new, ${stored.duplicates} already stored, ${malformed} malformed (region ${region.meta.name}, into ${sink.via})`,
    );
    for (const i of issues)
      console.log(`  ${i.line !== undefined ? `line ${i.line}` : `ping ${i.index}`}: ${i.message}`);
    if (malformed > ISSUES_SHOWN) console.log(`  … and ${malformed - ISSUES_SHOWN} more malformed rows`);
    if (stored.read === 0 && malformed > 0)
      throw new Error(
        `no ping could be read: all ${malformed} rows are malformed (the first ones are listed above); check the columns and units (--columns)`,
      );
    const proc = await processWithProgress(sink);
    for (const line of processedLines(proc, (Date.now() - t0) / 1000)) console.log(line);
  });
}
