/**
 * `streetwise analytics refresh`: rebuild the intersection traversal facts from the matched
 * trajectories in the database (all of them, or those overlapping --since/--until).
 * `streetwise analytics signals <log.csv> --intersection <id> [--map map.json]`: store a signal
 * controller's hi-res event log (and its channel/phase map).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { catalogOf, putChannelMap, rebuildFacts, uploadEventLog, type LogUpload } from '../analytics/index.js';
import { parseIsoToUnixS } from '../time/index.js';
import type { CliDeps } from './deps.js';
import { chosenRegion, chosenRegionName } from './region-choice.js';

/** Adds `analytics refresh`. */
export function registerAnalytics(program: Command, deps: CliDeps): void {
  const analytics = program.command('analytics').description('intersection analytics maintenance');
  analytics
    .command('refresh')
    .description('rebuild intersection traversal facts (movement, control delay, stops) from stored trajectories')
    .option('--since <time>', 'only trajectories overlapping this ISO 8601 time or later')
    .option('--until <time>', 'only trajectories overlapping before this ISO 8601 time')
    .action(async (opts: { since?: string; until?: string }) => {
      const parse = (v: string | undefined, flag: string): number | undefined => {
        if (v === undefined) return undefined;
        const s = /^\d+(\.\d+)?$/.test(v) ? Number(v) : parseIsoToUnixS(v);
        if (s === undefined || !Number.isFinite(s)) throw new Error(`${flag} ${v} is not ISO 8601 or unix time`);
        return s;
      };
      const sinceS = parse(opts.since, '--since');
      const untilS = parse(opts.until, '--until');
      const t0 = Date.now();
      const server = await deps.server();
      let r: { trajectories: number; facts: number };
      let region: string;
      if (server) {
        region = await chosenRegionName(deps);
        r = await server.request('POST', '/v1/admin/analytics/refresh', { since: sinceS, until: untilS });
      } else {
        const loaded = await chosenRegion(deps);
        region = loaded.meta.name;
        r = await deps.withDb((db) => rebuildFacts(db, loaded, { sinceS, untilS }));
      }
      console.log(
        `analytics (region "${region}"${server ? `, through the server at ${server.url}` : ''}): ${r.facts} intersection facts from ${r.trajectories} trajectories in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    });

  analytics
    .command('signals')
    .description('store a signal controller hi-res event log (CSV: timestamp,event code,parameter) of an intersection')
    .argument('<log>', 'CSV file of the log')
    .requiredOption('--intersection <id>', 'public intersection id (metadata API)')
    .option('--map <file>', 'JSON channel/phase map of the intersection (stored first, replacing the previous one)')
    .action(async (file: string, opts: { intersection: string; map?: string }) => {
      const csv = readFileSync(file, 'utf8');
      const map = opts.map === undefined ? undefined : (JSON.parse(readFileSync(opts.map, 'utf8')) as unknown);
      const key = encodeURIComponent(opts.intersection);
      const server = await deps.server();
      let r: LogUpload;
      if (server) {
        if (map !== undefined) await server.request('PUT', `/v1/signals/intersections/${key}/map`, map);
        r = (
          await server.request<{ result: LogUpload }>('POST', `/v1/signals/intersections/${key}/events`, csv, {
            contentType: 'text/csv',
          })
        ).result;
      } else {
        const region = await chosenRegion(deps);
        const ctx = { region: region.meta.name, timeZone: region.meta.timeZone || 'UTC' };
        r = await deps.withDb(async (db) => {
          const catalog = catalogOf(region);
          if (map !== undefined) await putChannelMap(db, catalog, ctx, opts.intersection, map);
          return uploadEventLog(db, catalog, ctx, opts.intersection, csv);
        });
      }
      console.log(
        `signal log of ${r.intersectionId}: ${r.events} events (${r.inserted} new), ${r.from ?? '-'} to ${r.to ?? '-'}`,
      );
    });
}
