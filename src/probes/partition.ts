/**
 * Partitions of the probe traces: every trace of a region belongs to one of `PARTITIONS`
 * partitions, by a hash of (region, trace id). Ingestion workers own partitions (see
 * `store/partition-leases.ts`): only the owner of a trace's partition matches the trace and
 * writes what derives from it. The hash is FNV-1a (32 bits) over the UTF-8 bytes of
 * `region + "\0" + traceId`: fixed, documented, computable by any client.
 */

/** Number of partitions per region. Fixed: changing it moves traces between partitions. */
export const PARTITIONS = 64;

const encoder = new TextEncoder();

/** FNV-1a, 32 bits, of `bytes`. */
export function fnv1a32(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The partition (0 … PARTITIONS − 1) of trace `traceId` in region `region`.
 * @example
 * partitionOf('demo', 'veh-17'); // a number in 0..63, the same in every process
 */
export function partitionOf(region: string, traceId: string): number {
  return fnv1a32(encoder.encode(`${region}\u0000${traceId}`)) % PARTITIONS;
}
