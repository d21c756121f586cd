/**
 * Meter prices and hours on the demo city's curbs over HTTP: metered blocks have segment rates
 * charged Mo-Sa 08:00-20:00 (docs/demo.md), so a Monday 10:00 stay costs the meter price and a
 * Sunday 10:00 stay is free.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRegion } from '../../src/network/index.js';
import type { Region } from '../../src/network/region.js';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { blockFromRegion } from '../../src/parking/inventory/from-osm.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';

let dir: string;
let region: Region;
let t: TestContext;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sw-curb-rates-'));
  const demo = await createDemoRegion(dir, { seed: 42 });
  region = loadRegion(demo.regionDir);
  t = await makeTestContext({ region, now: () => Date.UTC(2026, 10, 23, 14, 0) });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function segmentsOf(blockId: number, entry: string): Promise<any[]> {
  const r = await t.app.inject({
    method: 'GET',
    url: `/blocks?id=${blockId}&entry_time=${entry}&duration=60|120&accesstoken=${t.token}`,
  });
  expect(r.statusCode).toBe(200);
  return JSON.parse(r.body).result[0].segments;
}

describe('demo city meters', () => {
  it('gives every metered curb a price', () => {
    let ticket = 0;
    for (const b of region.blocks) {
      const rec = blockFromRegion(b, new Map(), 'USD');
      for (const c of b.curb.filter((x) => x.condition === 'ticket')) {
        ticket++;
        const mid = (c.startM + c.endM) / 2;
        const seg = rec.segments.find((s) => s.side === c.side.toUpperCase() && s.startM <= mid && mid <= s.endM)!;
        expect((seg.fields.structuredRates as Array<{ rate: number }>).some((r) => r.rate > 0)).toBe(true);
      }
    }
    expect(ticket).toBeGreaterThan(50);
  });

  it('charges a 2-hour meter street $2.00/hour on Monday 10:00 and nothing on Sunday 10:00', async () => {
    const block = region.blocks.find(
      (b) => b.name === 'Center St' && b.curb.some((c) => c.condition === 'ticket' && c.side === 'left'),
    )!;
    expect(block).toBeDefined();
    const monday = await segmentsOf(block.id, '2026-11-23T10:00');
    const sunday = await segmentsOf(block.id, '2026-11-22T10:00');
    const metered = monday.filter((s) => s.structuredRates.some((r: any) => r.rate > 0));
    expect(metered.length).toBeGreaterThan(0);
    for (const s of metered) {
      expect(s.structuredRates).toContainEqual({
        dow_start: 1,
        dow_end: 6,
        time_in: '08:00',
        time_out: '20:00',
        rate: 2,
        increment: 60,
        repeats: true,
      });
      expect(s.isOpen).toBe(true);
      expect(s.calculatedRates).toEqual([
        { rate_cost: 2, quoted_duration: '01:00:00', rate_type: 'B' },
        { rate_cost: 4, quoted_duration: '02:00:00', rate_type: 'B' },
      ]);
      const sun = sunday.find((x) => x.segmentID === s.segmentID);
      expect(sun.isOpen).toBe(true);
      expect(sun.calculatedRates.map((r: any) => r.rate_cost)).toEqual([0, 0]);
    }
  });

  it('prices a one-sided meter (left curb of Water St, $1.50/hour) and keeps the other curb No Parking', async () => {
    const block = region.blocks.find((b) => b.name === 'Water St' && b.curb.some((c) => c.condition === 'ticket'))!;
    const monday = await segmentsOf(block.id, '2026-11-23T19:30');
    const metered = monday.filter((s) => s.structuredRates.some((r: any) => r.rate > 0));
    expect(metered.length).toBeGreaterThan(0);
    // 19:30 + 2 h: one started paid hour before 20:00, then free
    for (const s of metered) expect(s.calculatedRates.map((r: any) => r.rate_cost)).toEqual([1.5, 1.5]);
    const closed = monday.filter((s) => s.isOpen === false);
    expect(closed.length).toBeGreaterThan(0);
    for (const s of closed) expect(s.calculatedRates).toEqual([]);
  });
});
