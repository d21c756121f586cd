/**
 * Typed arrays in shared memory: a structure whose arrays live in `SharedArrayBuffer`s is posted to
 * other threads (`postMessage`, `workerData`) without copying its data: every thread reads the same
 * bytes. Only read-only structures are shared this way (nothing synchronises writes).
 */

type Typed =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** True when `a`'s bytes are in a SharedArrayBuffer. */
export function isShared(a: ArrayBufferView): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && a.buffer instanceof SharedArrayBuffer;
}

/** `a` itself when already shared, otherwise a copy of it in a new SharedArrayBuffer. */
export function sharedCopy<T extends Typed>(a: T): T {
  if (isShared(a)) return a;
  const Ctor = a.constructor as new (b: SharedArrayBuffer) => T;
  const out = new Ctor(new SharedArrayBuffer(a.byteLength));
  out.set(a as never);
  return out;
}

/**
 * A copy of `x` whose typed arrays are all in shared memory (already shared ones are kept): plain
 * objects, class instances (as plain objects of their own fields: only data classes belong here)
 * and arrays are walked; other values are kept as they are.
 */
export function toSharedDeep<T>(x: T): T {
  if (x === null || typeof x !== 'object') return x;
  if (ArrayBuffer.isView(x)) return (x instanceof DataView ? x : sharedCopy(x as unknown as Typed)) as T;
  if (Array.isArray(x)) return x.map((v) => toSharedDeep(v)) as T;
  if (x instanceof Map || x instanceof Set) return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x as Record<string, unknown>)) out[k] = toSharedDeep(v);
  return out as T;
}

/** Bytes held by the typed arrays reachable from `x` (each array counted once). */
export function typedBytes(x: unknown, seen = new Set<unknown>()): number {
  if (x === null || typeof x !== 'object' || seen.has(x)) return 0;
  seen.add(x);
  if (ArrayBuffer.isView(x)) return x.byteLength;
  let n = 0;
  for (const v of Array.isArray(x) ? x : Object.values(x as Record<string, unknown>)) n += typedBytes(v, seen);
  return n;
}
