/** Every typed array reachable from `x` (objects and arrays walked, each visited once). */
export function typedArrays(x: unknown, out: ArrayBufferView[] = [], seen = new Set<unknown>()): ArrayBufferView[] {
  if (x === null || typeof x !== 'object' || seen.has(x)) return out;
  seen.add(x);
  if (ArrayBuffer.isView(x)) out.push(x);
  else for (const v of Array.isArray(x) ? x : Object.values(x as object)) typedArrays(v, out, seen);
  return out;
}
