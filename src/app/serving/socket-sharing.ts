/**
 * How serving threads answer on one TCP port. Where Node offers it (22.12+ and 23.1+ on Linux and
 * FreeBSD), every thread listens on its own socket with `reusePort` (SO_REUSEPORT: the kernel
 * hashes each new connection to one of the sockets, so connections spread evenly and a thread
 * never wakes for a connection another takes). Elsewhere (Node 20) the first thread's listening
 * descriptor is shared: the others listen on it with `listen({ fd })`, the public form Node
 * documents for an existing descriptor; Node 20 has no public getter for a server's descriptor,
 * so it is read from the server's handle (`listeningFd`), the one place that does so.
 */
import type { ListenOptions, Server } from 'node:net';

/** `reusePort`: a socket per thread on the same port; `fd`: the first thread's descriptor, shared. */
export type SocketSharing = 'reusePort' | 'fd';

/** The way `version` of Node (e.g. "v22.12.0") on `platform` shares a port between threads. */
export function socketSharingFor(version: string, platform: string): SocketSharing {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  const supported = major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
  return supported && (platform === 'linux' || platform === 'freebsd') ? 'reusePort' : 'fd';
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

/**
 * The descriptor of a listening server (the `fd` way only). Node 20 exposes it on the server's
 * handle alone; threads that listen on it with `listen({ fd })` use the documented API.
 */
export function listeningFd(server: Server): number {
  const handle = (server as unknown as { _handle?: { fd?: number } })._handle;
  if (handle?.fd === undefined || handle.fd < 0) throw new Error('the listening socket has no descriptor to share');
  return handle.fd;
}
