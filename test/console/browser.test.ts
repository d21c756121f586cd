/**
 * The map console in a real browser: Debian's chromium (headless, SwiftShader WebGL) driven by
 * playwright-core against a real demo server on a loopback port. Skipped with a message when
 * /usr/bin/chromium is missing, except under CI=true where that is a failure (.ci/run installs it).
 *
 * SCREENSHOTS=1 also writes the panels' screenshots to docs/img/console-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync } from 'node:fs';
import { DateTime } from 'luxon';
import type { Browser, Page } from 'playwright-core';
import { DbAuthService, hashTokenFor } from '../../src/auth/index.js';
import { demoLandmarks, type DemoLandmark } from '../../src/demo/landmarks.js';
import { toLatLon } from '../../src/demo/layout.js';
import { startDemoServer, type DemoServer } from '../helpers/demo-server.js';

/** What the page exposes to the test (console/src/main.ts). */
declare global {
  interface Window {
    streetwiseConsole?: { map: import('maplibre-gl').Map };
  }
}

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is missing: .ci/run installs the Debian chromium package`);
  console.warn(`${CHROMIUM} not found: skipping the console browser tests (apt-get install chromium)`);
}
const SCREENSHOTS = process.env.SCREENSHOTS === '1';
const L = demoLandmarks();

/** Chromium flags: headless without a GPU, WebGL through SwiftShader, no network services. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];

type FindRoute = {
  statusId: number;
  result: {
    trip: {
      routes: Array<{
        travelTimeMinutes: number;
        summary: { text: string };
        speedBuckets?: Array<{ speedBucket: number }>;
      }>;
    };
  };
};

describe.skipIf(!HAVE_CHROMIUM)('the map console in chromium', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  const errors: string[] = [];
  const tileStatuses: number[] = [];
  /** next week's day in the region: every departure of that day lies ahead */
  let day: DateTime;

  beforeAll(async () => {
    server = await startDemoServer();
    const { chromium } = await import('playwright-core');
    // launch() gives the browser a new, empty profile directory of its own
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const { appId, appKey } = server.demoApp;
    token = (
      (await (
        await fetch(`${server.url}/v1/AppToken?appId=${appId}&hashToken=${hashTokenFor(appId, appKey)}`)
      ).json()) as { result: { token: string } }
    ).result.token;
    day = DateTime.fromMillis(server.ctx.now(), { zone: server.ctx.region.meta.timeZone })
      .plus({ days: 7 })
      .startOf('day');
    // The Harbor Ferry is suspended 07:00-09:00 that day (the admin incident API, as an operator
    // would): at 08:00 a trip across the river takes a bridge, at 03:00 the ferry.
    const [lat, lon] = toLatLon(480, -300);
    const res = await fetch(`${server.url}/v1/incidents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'construction',
        severity: 4,
        lat,
        lon,
        closure: true,
        shortDescription: 'Harbor Ferry suspended',
        startTime: day.set({ hour: 7 }).toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'"),
        endTime: day.set({ hour: 9 }).toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'"),
      }),
    });
    expect(res.status).toBe(201);
    page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${m.text()} ${m.location().url}`);
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => {
      if (r.url().includes('/tiles/')) tileStatuses.push(r.status());
      if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.url()}`);
    });
  }, 170_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Screen position (page pixels) of a place on the map. */
  async function screenOf(p: DemoLandmark): Promise<{ x: number; y: number }> {
    const pt = await page.evaluate(([lon, lat]) => window.streetwiseConsole!.map.project([lon, lat]), [p.lon, p.lat]);
    const box = (await page.locator('#map').boundingBox())!;
    return { x: box.x + pt.x, y: box.y + pt.y };
  }

  async function shot(name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync('docs/img', { recursive: true });
    await page.screenshot({ path: `docs/img/console-${name}.png` });
  }

  /** Sets the departure slider (quarter hours) as a user would, and waits for the FindRoute it sends. */
  async function departAt(quarter: number): Promise<FindRoute> {
    const at = encodeURIComponent(
      day
        .plus({ minutes: quarter * 15 })
        .toUTC()
        .toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'"),
    );
    // only the answer for this departure: an earlier one may still be on its way
    const wait = page.waitForResponse((r) => r.url().includes('Action=FindRoute') && r.url().includes(at));
    await page.$eval(
      '#route-time',
      (el, v) => {
        (el as HTMLInputElement).value = v;
        el.dispatchEvent(new Event('input'));
        el.dispatchEvent(new Event('change'));
      },
      String(quarter),
    );
    return (await (await wait).json()) as FindRoute;
  }

  /** The same request sent from outside the browser, as any client. */
  async function apiAgain(url: string): Promise<FindRoute> {
    return (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as FindRoute;
  }

  async function displayedMinutes(expected: number): Promise<number> {
    await page.waitForFunction(
      (m) => document.querySelector('[data-testid="travel-time"]')?.getAttribute('data-minutes') === String(m),
      expected,
    );
    return Number(await page.getAttribute('[data-testid="travel-time"]', 'data-minutes'));
  }

  it('signs in with the prefilled demo application and draws the region from its own tiles, without console errors', async () => {
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.inputValue('#app-id')).toBe(server.demoApp.appId);
    expect(await page.inputValue('#app-key')).toBe(server.demoApp.appKey);
    await page.click('#sign-in-submit');
    await page.waitForFunction(
      () => {
        const m = window.streetwiseConsole?.map;
        return !!m && m.loaded() && m.areTilesLoaded();
      },
      undefined,
      { timeout: 30_000 },
    );
    // pixels of the WebGL canvas: not blank, with white street fill and the background around it
    const px = await page.evaluate(() => {
      const c = window.streetwiseConsole!.map.getCanvas();
      const copy = document.createElement('canvas');
      copy.width = c.width;
      copy.height = c.height;
      const g = copy.getContext('2d')!;
      g.drawImage(c, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      let background = 0,
        white = 0,
        other = 0;
      for (let i = 0; i < d.length; i += 4) {
        if (Math.abs(d[i] - 0xee) < 3 && Math.abs(d[i + 1] - 0xf0) < 3 && Math.abs(d[i + 2] - 0xec) < 3) background++;
        else if (d[i] > 250 && d[i + 1] > 250 && d[i + 2] > 250) white++;
        else other++;
      }
      return { background, white, other, total: d.length / 4 };
    });
    expect(px.white).toBeGreaterThan(px.total * 0.01);
    expect(px.other).toBeGreaterThan(px.total * 0.01);
    expect(px.background).toBeGreaterThan(px.total * 0.3);
    expect(tileStatuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(
      await page.evaluate(
        () => window.streetwiseConsole!.map.queryRenderedFeatures({ layers: ['road-labels'] }).length,
      ),
    ).toBeGreaterThan(0);
    await expect.poll(() => page.textContent('.maplibregl-ctrl-attrib')).toContain('OpenStreetMap contributors');
    expect(errors).toEqual([]);
  });

  it('opens the Route panel at the busiest hour with learned speeds, where a route shows congestion', async () => {
    // the busiest hour of the local week by learned-speed samples, read as any client would
    const learned = (await (
      await fetch(`${server.url}/v1/speeds/learned?limit=1000`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { edges: Array<{ bins: Array<{ bin: number; samples: number }> }> };
    const perHour = new Array<number>(7 * 24).fill(0);
    for (const e of learned.edges) for (const b of e.bins) perHour[Math.floor(b.bin / 4)] += b.samples;
    const busiest = perHour.lastIndexOf(Math.max(...perHour));
    // the demo simulates one weekday with its morning and evening peaks
    expect([8, 17]).toContain(busiest % 24);
    const now = DateTime.fromMillis(server.ctx.now(), { zone: server.ctx.region.meta.timeZone });
    let peak = now
      .startOf('day')
      .plus({ days: (Math.floor(busiest / 24) + 1 - now.weekday + 7) % 7 })
      .set({ hour: busiest % 24 });
    if (peak <= now) peak = peak.plus({ weeks: 1 });
    await expect.poll(() => page.inputValue('#route-date')).toBe(peak.toFormat('yyyy-MM-dd'));
    expect(await page.inputValue('#route-time')).toBe(String(peak.hour * 4));
    expect(await page.textContent('#route-time-label')).toBe(peak.toFormat('HH:mm'));
    expect(await page.textContent('#route-peak')).toContain(peak.toFormat('cccc d LLL yyyy HH:mm ZZZZ'));

    // a trip from Southport Ave across town: slower at the peak than at 03:00, partly orange/red
    const a = await screenOf(L.southportAve);
    await page.mouse.click(a.x, a.y);
    const wait = page.waitForResponse((r) => r.url().includes('Action=FindRoute'));
    const b = await screenOf(L.grandAndCenter);
    await page.mouse.click(b.x, b.y);
    const res = await wait;
    const utc = (t: DateTime) => encodeURIComponent(t.toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'"));
    expect(res.url()).toContain(`DepartureTime=${utc(peak)}`);
    const atPeak = ((await res.json()) as FindRoute).result.trip.routes[0];
    const at3 = (await apiAgain(res.url().replace(utc(peak), utc(peak.set({ hour: 3 }))))).result.trip.routes[0];
    expect(atPeak.travelTimeMinutes).toBeGreaterThan(at3.travelTimeMinutes);
    expect(atPeak.speedBuckets?.some((s) => s.speedBucket <= 2)).toBe(true);
    expect(at3.speedBuckets?.every((s) => s.speedBucket === 3)).toBe(true);
    expect(await displayedMinutes(atPeak.travelTimeMinutes)).toBe(atPeak.travelTimeMinutes);
    await page.waitForFunction(
      () => window.streetwiseConsole!.map.queryRenderedFeatures({ layers: ['route-line'] }).length > 0,
    );
    await shot('routing');
    await page.click('#panel-routing button:text("Clear")');
  });

  it('draws a route after two clicks, with the travel time FindRoute gives any client', async () => {
    await page.fill('#route-date', day.toFormat('yyyy-MM-dd'));
    await page.$eval('#route-time', (el) => {
      (el as HTMLInputElement).value = '32';
      el.dispatchEvent(new Event('input'));
    }); // 08:00
    const a = await screenOf(L.downtownWaterfront);
    await page.mouse.click(a.x, a.y);
    const wait = page.waitForResponse(
      (r) =>
        r.url().includes('Action=FindRoute') &&
        r.url().includes(encodeURIComponent(day.set({ hour: 8 }).toUTC().toISO({ suppressMilliseconds: true })!)),
    );
    const b = await screenOf(L.southport);
    await page.mouse.click(b.x, b.y);
    const res = await wait;
    expect(await page.textContent('#route-time-label')).toBe('08:00');
    expect(res.url()).toContain(
      `DepartureTime=${encodeURIComponent(day.set({ hour: 8 }).toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'"))}`,
    );
    const body = (await res.json()) as FindRoute;
    expect(body.statusId).toBe(0);
    const minutes = body.result.trip.routes[0].travelTimeMinutes;
    expect(await displayedMinutes(minutes)).toBe(minutes);
    expect((await apiAgain(res.url())).result.trip.routes[0].travelTimeMinutes).toBe(minutes);
    await page.waitForFunction(
      () => window.streetwiseConsole!.map.queryRenderedFeatures({ layers: ['route-line'] }).length > 0,
    );
    // with the ferry suspended the route takes the Harbor Bridge (I 900)
    expect(body.result.trip.routes[0].summary.text).not.toContain('Harbor Ferry');
  });

  it('re-routes when the departure slider moves to 03:00, and the travel time changes', async () => {
    const at8 = Number(await page.getAttribute('[data-testid="travel-time"]', 'data-minutes'));
    const body = await departAt(12);
    expect(await page.textContent('#route-time-label')).toBe('03:00');
    const at3 = body.result.trip.routes[0].travelTimeMinutes;
    expect(body.result.trip.routes[0].summary.text).toContain('Harbor Ferry');
    expect(at3).toBeLessThan(at8);
    expect(await displayedMinutes(at3)).toBe(at3);
    await page.waitForSelector('[data-testid="day-chart"] rect');
  });

  it('shows the lots in view with occupancy and price, blocks by probability, and a reservation quote', async () => {
    await page.click('#tabs button[data-panel="parking"]');
    // entry next week at 10:00 for the default 2 hours (a fixed time the demo lots are open)
    const entry = day.set({ hour: 10 });
    const lots = page.waitForResponse(
      (r) =>
        r.url().includes('/lots?') &&
        r.url().includes(encodeURIComponent(entry.toUTC().toFormat("yyyy-MM-dd'T'HH:mm'Z'"))),
    );
    await page.fill('#parking-entry', entry.toFormat("yyyy-MM-dd'T'HH:mm"));
    expect((await lots).status()).toBe(200);
    await page.waitForFunction(() => Number(document.querySelector('#parking-status')?.getAttribute('data-lots')) > 0);
    await page.waitForFunction(
      () => window.streetwiseConsole!.map.queryRenderedFeatures({ layers: ['parking-lots'] }).length > 0,
    );
    expect(
      await page.evaluate(
        () => window.streetwiseConsole!.map.queryRenderedFeatures({ layers: ['parking-blocks'] }).length,
      ),
    ).toBeGreaterThan(0);
    const row = page.locator('#parking-lots tr', { hasText: 'Harborplace Garage' });
    expect(await row.locator('td').nth(3).textContent()).toMatch(/^\$\d+\.\d\d$/);
    await row.click();
    await page.waitForSelector('#parking-products button[data-product]');
    await page.locator('#parking-products tr', { hasText: 'Reserved Parking' }).locator('button[data-product]').click();
    await expect
      .poll(() => page.textContent('[data-testid="quote"]'), { timeout: 10_000 })
      .toMatch(/^\$\d+\.\d\d incl\..* valid until \d\d:\d\d E[SD]T$/);
    // occupancy is marked as a prediction; a closed lot says so instead of a red percentage
    expect(await page.textContent('#parking-lots thead')).toContain('Occupied (predicted)');
    expect(await row.locator('td').nth(2).textContent()).toMatch(/^(~\d+ %|closed|–)$/);
    // no product price reads "$null"
    expect(await page.textContent('#parking-products')).not.toContain('null');
    await shot('parking');
  });

  it("colours intersections by level of service and lists a clicked one's movements with a delay chart", async () => {
    await page.click('#tabs button[data-panel="analytics"]');
    await page.waitForFunction(
      () => Number(document.querySelector('#analytics-status')?.getAttribute('data-intersections')) > 0,
      undefined,
      { timeout: 20_000 },
    );
    await page.waitForFunction(
      () => window.streetwiseConsole!.map.queryRenderedFeatures({ layers: ['los-circles'] }).length > 0,
    );
    // it opens where the data is: a peak hour of the simulated weekday, not today's first hour
    expect(await page.textContent('#analytics-time-label')).toMatch(/^(07|08|16|17):00–/);
    // the 08:00 peak: some signalized approaches queue (LOS D-F)
    await page.$eval('#analytics-time', (el) => {
      (el as HTMLInputElement).value = '8';
      el.dispatchEvent(new Event('input'));
      el.dispatchEvent(new Event('change'));
    });
    await page.waitForFunction(() =>
      (document.querySelector('#analytics-status')?.textContent ?? '').includes('08:00–09:00'),
    );
    const levels = await page.locator('#analytics-list tbody tr .pill').allTextContents();
    expect(levels.filter((l) => /^[DEF]$/.test(l.trim())).length).toBeGreaterThan(0);
    await page.locator('#analytics-list tbody tr').first().click();
    await page.waitForSelector('#analytics-movements tbody tr');
    expect(await page.locator('[data-testid="delay-chart"] rect').count()).toBeGreaterThan(0);
    await shot('analytics');
  });

  it('draws live speeds and lists the incidents', async () => {
    await page.click('#tabs button[data-panel="live"]');
    await page.waitForFunction(
      () => Number(document.querySelector('#live-status')?.getAttribute('data-live')) > 0,
      undefined,
      { timeout: 20_000 },
    );
    await expect.poll(() => page.textContent('#live-incidents')).toContain('Harbor Ferry suspended');
    await shot('live');
    expect(errors).toEqual([]);
  });

  it('tells the user clearly when the kept app token has expired', async () => {
    const { appId, appKey } = server.demoApp;
    // a token issued 25 hours ago by the server's own keys (tokens live 24 h)
    const old = new DbAuthService(server.ctx.db, () => server.ctx.now() - 25 * 3600_000);
    const expired = (await old.issueAppToken(appId, hashTokenFor(appId, appKey))).token;
    const p2 = await browser.newPage();
    await p2.addInitScript((t) => sessionStorage.setItem('streetwise.token', t), expired);
    const refused = p2.waitForResponse((r) => r.url().includes('/tiles/live/0/0/0.pbf'));
    await p2.goto(`${server.url}/`);
    const r = await refused;
    expect(r.status()).toBe(401);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('TILES_AUTH_EXPIRED');
    await expect
      .poll(() => p2.textContent('#notice'))
      .toContain('Your app token has expired. Sign in again to get a new one.');
    expect(await p2.isVisible('#sign-in')).toBe(true);
    await p2.close();
  });

  it('stacks the map above the panels on a narrow (phone) screen', async () => {
    const p4 = await browser.newPage({ viewport: { width: 400, height: 760 } });
    await p4.goto(`${server.url}/`);
    await p4.waitForSelector('#map');
    const map = (await p4.locator('#map').boundingBox())!;
    const side = (await p4.locator('#sidebar').boundingBox())!;
    expect(map.width).toBeGreaterThan(390);
    expect(side.width).toBeGreaterThan(390);
    expect(map.y + map.height).toBeLessThanOrEqual(side.y + 1);
    await p4.close();
  });

  it('draws the first route after sign-in and two clicks on a freshly loaded page (time logged)', async () => {
    const p3 = await browser.newPage({ viewport: { width: 1100, height: 720 } });
    const t0 = Date.now();
    await p3.goto(`${server.url}/`);
    await p3.click('#sign-in-submit');
    await p3.waitForFunction(() => window.streetwiseConsole?.map.loaded());
    const map = (await p3.locator('#map').boundingBox())!;
    const proj = async (q: DemoLandmark) =>
      p3.evaluate(([lon, lat]) => window.streetwiseConsole!.map.project([lon, lat]), [q.lon, q.lat]);
    const a = await proj(L.calvertAndLombard);
    const b = await proj(L.southportAve);
    await p3.mouse.click(map.x + a.x, map.y + a.y);
    await p3.mouse.click(map.x + b.x, map.y + b.y);
    await p3.waitForFunction(
      () => window.streetwiseConsole!.map.queryRenderedFeatures({ layers: ['route-line'] }).length > 0,
    );
    const ms = Date.now() - t0;
    console.log(`console: first route drawn ${ms} ms after the page was requested (sign-in and two clicks included)`);
    await p3.close();
  });
});
