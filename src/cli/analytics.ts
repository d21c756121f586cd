/**
 * `streetwise analytics refresh`: rebuild the intersection traversal facts from the matched
 * trajectories in the database (all of them, or those overlapping --since/--until).
 */
import type { Command } from 'commander';
import { rebuildFacts } from '../analytics/index.js';
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
}
