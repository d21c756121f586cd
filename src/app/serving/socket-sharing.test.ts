import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenOptions, listeningFd, socketSharingFor } from './socket-sharing.js';

describe('how serving threads share a port', () => {
  it.each([
    ['v20.20.2', 'linux', 'fd'],
    ['v22.11.0', 'linux', 'fd'],
    ['v22.12.0', 'linux', 'reusePort'],
    ['v23.0.0', 'linux', 'fd'],
    ['v23.1.0', 'linux', 'reusePort'],
    ['v24.3.0', 'freebsd', 'reusePort'],
    ['v24.3.0', 'darwin', 'fd'],
    ['v24.3.0', 'win32', 'fd'],
  ])('Node %s on %s: %s', (version, platform, expected) => {
    expect(socketSharingFor(version, platform)).toBe(expected);
  });

  it('asks for reusePort only in that mode', () => {
    expect(listenOptions(8080, '127.0.0.1', 'reusePort')).toEqual({ port: 8080, host: '127.0.0.1', reusePort: true });
    expect(listenOptions(8080, '127.0.0.1', 'fd')).toEqual({ port: 8080, host: '127.0.0.1' });
  });

  it('reads the descriptor of a listening server, and refuses one that does not listen', async () => {
    const a = createServer((c) => c.end());
    expect(() => listeningFd(a)).toThrow(/no descriptor/);
    await new Promise<void>((resolve, reject) => {
      a.once('error', reject);
      a.listen({ port: 0, host: '127.0.0.1' }, () => resolve());
    });
    expect(listeningFd(a)).toBeGreaterThan(2);
    await new Promise((r) => a.close(r));
  });
});
