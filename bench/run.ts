/**
 * `npm run bench`: every benchmark of the project, seeded, printing figures to stdout.
 * `npm run bench -- routing parking` runs only the named ones; `npm run bench -- --help` lists them.
 */
const BENCHES: Record<string, { file: string; fn: string; what: string }> = {
  import: { file: './import.js', fn: 'benchImport', what: 'OSM import and bundle load per extract' },
  routing: { file: './routing.js', fn: 'benchRouting', what: 'FindRoute latency on Baltimore and a 1M-edge grid' },
  matching: { file: './matching.js', fn: 'benchMatching', what: 'map-matching throughput on Baltimore' },
  formats: {
    file: './formats.js',
    fn: 'benchFormats',
    what: 'reading 1M-ping JSON, NDJSON and CSV bodies: throughput and peak RSS',
  },
  parking: { file: './parking.js', fn: 'benchParking', what: 'lots/blocks query latency with 10k and 1M lots' },
  reservations: {
    file: './reservations.js',
    fn: 'benchReservations',
    what: 'reservation throughput on PGlite and PostgreSQL',
  },
  http: {
    file: './http.js',
    fn: 'benchHttp',
    what: 'routing over real TCP from another process: latency (new connection, keep-alive) and throughput',
  },
  memory: {
    file: './memory.js',
    fn: 'benchMemory',
    what: 'server peak RSS by serving threads on Baltimore and the 1M-edge grid',
  },
  live: {
    file: './live.js',
    fn: 'benchLive',
    what: 'FindRoute over TCP quiet vs during a probe feed, /healthz, ingestion throughput',
  },
  'ingest-scale': {
    file: './ingest-scale.js',
    fn: 'benchIngestScale',
    what: 'probe ingestion scaled out: 1, 2 and 3 worker processes (one killed) on PostgreSQL and NATS',
  },
  analytics: {
    file: './analytics.js',
    fn: 'benchAnalytics',
    what: 'metric query latency over 1M (PGlite) / 10M (PostgreSQL) facts',
  },
  metro: {
    file: './metro.js',
    fn: 'benchMetro',
    what: 'the generated 1 M-edge metro: import, serving memory, FindRoute vs OSRM, live updates, tiles, simulate/ingest, analytics (--step NAME runs one step)',
  },
  tiles: {
    file: './tiles.js',
    fn: 'benchTiles',
    what: 'basemap vector tiles of Baltimore over real HTTP (cold and cached)',
  },
};

/** Flags that take a value (the metro benchmark's); their values are not benchmark names. */
const VALUE_FLAGS = new Set(['--step', '--edges', '--seed', '--dir']);
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  const width = Math.max(...Object.keys(BENCHES).map((n) => n.length));
  console.log(
    [
      'usage: npm run bench [-- NAME ...]   (no name: every benchmark but metro, several minutes)',
      '',
      ...Object.entries(BENCHES).map(([n, b]) => `  ${n.padEnd(width)}  ${b.what}`),
      '',
      'metro flags: --step NAME (one step), --edges N, --seed N, --dir DIR',
    ].join('\n'),
  );
  process.exit(0);
}
const unknownFlag = args.find((a, i) => a.startsWith('-') && !VALUE_FLAGS.has(a) && !VALUE_FLAGS.has(args[i - 1]));
if (unknownFlag !== undefined) {
  console.error(`unknown option "${unknownFlag}"; npm run bench -- --help lists the benchmarks and flags`);
  process.exit(2);
}
const wanted = args.filter((a, i) => !a.startsWith('-') && !VALUE_FLAGS.has(args[i - 1]));
for (const name of wanted) {
  if (!BENCHES[name]) {
    console.error(`unknown benchmark "${name}"; choose from ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
}
// the metro benchmark runs for an hour or more: only when asked for
const names = wanted.length ? wanted : Object.keys(BENCHES).filter((n) => n !== 'metro');
console.log(`streetwise benchmarks — node ${process.version}, ${new Date().toISOString()}`);
for (const name of names) {
  const b = BENCHES[name];
  console.log(`\n=== ${name}: ${b.what}`);
  const mod = (await import(b.file)) as Record<string, () => Promise<void>>;
  const t0 = performance.now();
  await mod[b.fn]();
  console.log(`(${name} took ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
