import { createServer, type ListenOptions, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenOptions, servingThreadPlan, socketSharing, socketSharingFor } from './socket-sharing.js';

/** Listens `server` with `options`; resolves to the bound port, rejects with the listen error. */
function listen(server: Server, options: ListenOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => resolve((server.address() as { port: number }).port));
  });
}

describe('how serving threads share a port', () => {
  it.each([
    ['v20.20.2', 'linux', 'single'],
    ['v22.11.0', 'linux', 'single'],
    ['v22.12.0', 'linux', 'reusePort'],
    ['v23.0.0', 'linux', 'single'],
    ['v23.1.0', 'linux', 'reusePort'],
    ['v24.3.0', 'freebsd', 'reusePort'],
    ['v24.3.0', 'darwin', 'single'],
    ['v24.3.0', 'win32', 'single'],
  ])('Node %s on %s: %s', (version, platform, expected) => {
    expect(socketSharingFor(version, platform)).toBe(expected);
  });

  it('asks for reusePort only in that mode', () => {
    expect(listenOptions(8080, '127.0.0.1', 'reusePort')).toEqual({ port: 8080, host: '127.0.0.1', reusePort: true });
    expect(listenOptions(8080, '127.0.0.1', 'single')).toEqual({ port: 8080, host: '127.0.0.1' });
  });

  it('runs every thread asked for with reusePort, one thread without it and says why', () => {
    expect(servingThreadPlan(4, 'v22.12.0', 'linux')).toEqual({ count: 4 });
    expect(servingThreadPlan(1, 'v20.20.2', 'linux')).toEqual({ count: 1 });
    expect(servingThreadPlan(2, 'v20.20.2', 'linux')).toEqual({
      count: 1,
      notice:
        'serving with 1 thread instead of 2: more serving threads need Node >= 22.12 on Linux or FreeBSD (this is Node v20.20.2 on linux)',
    });
  });

  // only where this Node has reusePort (CI runs Node 22); on Node 20 it shows as skipped
  it.skipIf(socketSharing() !== 'reusePort')('binds two sockets on one port with reusePort', async () => {
    const a = createServer((c) => c.end());
    const b = createServer((c) => c.end());
    const plain = createServer((c) => c.end());
    try {
      const port = await listen(a, listenOptions(0, '127.0.0.1', 'reusePort'));
      expect(await listen(b, listenOptions(port, '127.0.0.1', 'reusePort'))).toBe(port);
      // a socket that does not ask for reusePort cannot take the port
      await expect(listen(plain, listenOptions(port, '127.0.0.1', 'single'))).rejects.toThrow(/EADDRINUSE/);
    } finally {
      for (const s of [a, b]) await new Promise((r) => s.close(r));
    }
  });
});
