/**
 * The console page: reads `/console/config.json`, signs in through `/v1/AppToken` (the demo
 * application is prefilled when the server offers it), draws the map and runs the five panels.
 */
import type { Map as MlMap } from 'maplibre-gl';
import { ApiClient, ApiError } from './api.js';
import { byId, h, replace } from './dom.js';
import { createMap } from './map.js';
import { RegionTime } from './time.js';
import { AnalyticsPanel } from './panels/analytics.js';
import { LivePanel } from './panels/live.js';
import { ParkingPanel } from './panels/parking.js';
import type { Panel, PanelContext } from './panels/panel.js';
import { RoutingPanel } from './panels/routing.js';
import { SignalsPanel } from './panels/signals.js';

interface PageConfig {
  region: {
    name: string;
    mapVersion: string;
    bounds: [number, number, number, number];
    timeZone: string;
    country: string;
  };
  now: string;
  services: string[];
  attribution: string;
  demoApp?: { appId: string; appKey: string };
}

const TOKEN_KEY = 'streetwise.token';

/** What tests and curious users can reach from the browser console. */
declare global {
  interface Window {
    streetwiseConsole?: { map: MlMap; api: ApiClient; panels: Record<string, Panel>; signedIn: Promise<void> };
  }
}

function showNotice(message: string | null, action?: { label: string; run: () => void }): void {
  const el = byId('notice');
  if (!message) {
    el.hidden = true;
    replace(el);
    return;
  }
  replace(el, message, action ? h('button', { type: 'button', onclick: action.run }, action.label) : null);
  el.hidden = false;
}

async function main(): Promise<void> {
  const cfg = (await (await fetch('/console/config.json')).json()) as PageConfig;
  byId('region-name').textContent = `${cfg.region.name} · ${cfg.region.timeZone}`;
  const api = new ApiClient();
  const time = new RegionTime(cfg.region.timeZone, cfg.now);
  const map = createMap(byId('map'), { bounds: cfg.region.bounds, attribution: cfg.attribution }, (url: string) => {
    // live tiles are protected: send the app token like any API call
    if (url.includes('/tiles/live/') && api.token) return { url, headers: { authorization: `Bearer ${api.token}` } };
    return undefined;
  });

  const dialog = byId<HTMLDialogElement>('sign-in');
  const appId = byId<HTMLInputElement>('app-id');
  const appKey = byId<HTMLInputElement>('app-key');
  if (cfg.demoApp) {
    appId.value = cfg.demoApp.appId;
    appKey.value = cfg.demoApp.appKey;
  }
  let resolveSignedIn: () => void = () => undefined;
  const signedIn = new Promise<void>((r) => (resolveSignedIn = r));
  const askSignIn = () => {
    if (!dialog.open) dialog.showModal();
  };
  api.onAuthFailure = (err: ApiError) => {
    api.token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    byId('sign-out').hidden = true;
    showNotice(
      err.kind === 'expired'
        ? 'Your app token has expired. Sign in again to get a new one.'
        : `The server refused the app token (${err.message}). Sign in again.`,
      { label: 'Sign in', run: askSignIn },
    );
    askSignIn();
  };
  byId<HTMLFormElement>('sign-in-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const error = byId('sign-in-error');
    error.textContent = '';
    try {
      await api.signIn(appId.value.trim(), appKey.value.trim());
      sessionStorage.setItem(TOKEN_KEY, api.token!);
      dialog.close();
      showNotice(null);
      byId('sign-out').hidden = false;
      resolveSignedIn();
    } catch (err) {
      error.textContent = err instanceof Error ? err.message : String(err);
    }
  });
  byId('sign-out').addEventListener('click', () => {
    api.token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    byId('sign-out').hidden = true;
    askSignIn();
  });

  const ctx: PanelContext = { map, api, time, region: cfg.region, notice: (m) => showNotice(m) };
  const panels: Record<string, Panel> = {
    routing: new RoutingPanel(ctx, byId('panel-routing')),
    parking: new ParkingPanel(ctx, byId('panel-parking')),
    analytics: new AnalyticsPanel(ctx, byId('panel-analytics')),
    live: new LivePanel(ctx, byId('panel-live')),
    signals: new SignalsPanel(ctx, byId('panel-signals')),
  };
  let active = 'routing';
  const tabs = [...document.querySelectorAll<HTMLButtonElement>('#tabs button')];
  const select = (name: string) => {
    if (name !== active) panels[active].deactivate();
    active = name;
    for (const t of tabs) t.setAttribute('aria-selected', String(t.dataset.panel === name));
    for (const key of Object.keys(panels)) byId(`panel-${key}`).hidden = key !== name;
    panels[name].activate();
  };
  for (const t of tabs) t.addEventListener('click', () => void signedIn.then(() => select(t.dataset.panel!)));
  map.on('click', (e) => panels[active].onMapClick?.(e));
  window.streetwiseConsole = { map, api, panels, signedIn };

  // A token kept from earlier in this tab is checked with the server before use.
  const kept = sessionStorage.getItem(TOKEN_KEY);
  if (kept) {
    api.token = kept;
    try {
      await api.get('/tiles/live/0/0/0.pbf');
      byId('sign-out').hidden = false;
      resolveSignedIn();
    } catch (err) {
      if (!(err instanceof ApiError) || err.kind === 'failed') resolveSignedIn();
    }
  } else {
    askSignIn();
  }
  await signedIn;
  select('routing');
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  showNotice(
    /webgl/i.test(message)
      ? `The map needs WebGL2, which this browser does not provide: turn on hardware acceleration, or use a current Chrome, Firefox, Safari or Edge (headless Chromium: --use-angle=swiftshader --enable-unsafe-swiftshader). (${message})`
      : `The console could not start: ${message}`,
  );
});
