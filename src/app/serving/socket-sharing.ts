/**
 * How serving threads answer on one TCP port. Where Node offers it (22.12+ and 23.1+ on Linux and
 * FreeBSD), every thread listens on its own socket with `reusePort` (SO_REUSEPORT: the kernel
 * hashes each new connection to one of the sockets, so connections spread evenly and a thread
 * never wakes for a connection another takes). Elsewhere (Node 20, macOS, Windows) Node has no
 * public way to share a listening socket between threads (worker threads cannot receive a server
 * handle, and a server's descriptor has no public getter), so one serving thread owns the port.
 */
import type { ListenOptions } from 'node:net';

/** `reusePort`: a socket per thread on the same port; `single`: one serving thread owns the port. */
export type SocketSharing = 'reusePort' | 'single';

/** The way `version` of Node (e.g. "v22.12.0") on `platform` shares a port between threads. */
export function socketSharingFor(version: string, platform: string): SocketSharing {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  const supported = major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
  return supported && (platform === 'linux' || platform === 'freebsd') ? 'reusePort' : 'single';
}

/** The way this process shares its port between serving threads. */
export function socketSharing(): SocketSharing {
  return socketSharingFor(process.version, process.platform);
}

/** Listen options of a serving thread's own socket on `port` (0: any free port), shared with `reusePort` when asked. */
export function listenOptions(port: number, host: string, sharing: SocketSharing): ListenOptions {
  // `reusePort` is in Node's ListenOptions from 22.12 on; the Node 20 typings lack it
  return sharing === 'reusePort' ? ({ port, host, reusePort: true } as ListenOptions) : { port, host };
}

/** How many serving threads run when `wanted` are asked for, and the notice to log when fewer run. */
export interface ServingThreadPlan {
  count: number;
  notice?: string;
}

/**
 * The serving threads that run when `wanted` are asked for: all of them with `reusePort`, one
 * otherwise (with a one-line notice when more were asked for). `version` and `platform` are
 * `process.version` and `process.platform`.
 */
export function servingThreadPlan(wanted: number, version: string, platform: string): ServingThreadPlan {
  if (wanted <= 1 || socketSharingFor(version, platform) === 'reusePort') return { count: wanted };
  return {
    count: 1,
    notice: `serving with 1 thread instead of ${wanted}: more serving threads need Node >= 22.12 on Linux or FreeBSD (this is Node ${version} on ${platform})`,
  };
}
