import { describe, it, expect } from 'vitest';
import { loadConfig, ConfigError } from './load.js';

describe('loadConfig', () => {
  it('uses defaults, then environment, then flags', () => {
    expect(loadConfig({}, {}).server.port).toBe(8080);
    expect(loadConfig({}, { PORT: '9000' }).server.port).toBe(9000);
    expect(loadConfig({ 'server.port': '9100' }, { PORT: '9000' }).server.port).toBe(9100);
    expect(loadConfig({}, {}).routing).toEqual({ routeTtlHours: 24, routeWriteDelayMs: 20 });
    expect(loadConfig({}, { ROUTE_WRITE_DELAY_MS: '0' }).routing.routeWriteDelayMs).toBe(0);
  });
  it('fails fast naming the variable on bad values', () => {
    expect(() => loadConfig({}, { PORT: 'eighty' })).toThrow(/PORT="eighty" is invalid/);
    expect(() => loadConfig({}, { PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { SERVICES: 'routing,weather' })).toThrow(/unknown service "weather"/);
    expect(() => loadConfig({}, { DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({}, { DEMO_SIMULATE: 'maybe' })).toThrow(/DEMO_SIMULATE/);
    expect(() => loadConfig({}, { ROUTE_WRITE_DELAY_MS: '-1' })).toThrow(/ROUTE_WRITE_DELAY_MS="-1" is invalid/);
    expect(() => loadConfig({}, { ROUTE_WRITE_DELAY_MS: '1001' })).toThrow(ConfigError);
  });
  it('freezes the result', () => {
    const c = loadConfig({}, {});
    expect(Object.isFrozen(c.server)).toBe(true);
  });
});
