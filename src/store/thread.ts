/**
 * Starts a worker thread from a module of this package. Compiled code (`dist/…/x.js`) starts
 * directly; source run through tsx (`src/…/x.ts`, in tests and `npm run bench`) first registers
 * tsx in the new thread, since loader flags of the parent do not reach a worker's entry module.
 */
import { Worker, type ResourceLimits, type TransferListItem } from 'node:worker_threads';

/** Starts `moduleUrl` (e.g. `siblingModule(import.meta.url, 'pglite-host')`) as a worker thread. */
export function startThread(
  moduleUrl: URL,
  workerData?: unknown,
  transferList?: readonly TransferListItem[],
  resourceLimits?: ResourceLimits,
): Worker {
  const opts = { workerData, transferList: transferList as TransferListItem[] | undefined, resourceLimits };
  if (moduleUrl.pathname.endsWith('.ts')) {
    const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(moduleUrl.href)}); })`;
    return new Worker(boot, { ...opts, eval: true });
  }
  return new Worker(moduleUrl, opts);
}

/** The URL of a sibling module, with the extension this module itself was loaded with (.ts or .js). */
export function siblingModule(base: string, name: string): URL {
  const ext = base.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${ext}`, base);
}
