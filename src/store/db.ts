/**
 * The database port: a tiny interface over PostgreSQL that both backends implement
 * (PGlite embedded, `pg` against a server). Same SQL everywhere; parameters are `$1, $2, …`.
 */

/** Result of a query: rows as plain objects keyed by column name. */
export interface QueryResult<T> {
  rows: T[];
  /** rows affected by INSERT/UPDATE/DELETE (0 when unknown) */
  rowCount: number;
}

/** Something that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

/** The database: queries, transactions, and a way to close it. */
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `fn` in a transaction (BEGIN … COMMIT, ROLLBACK on throw). Use `tx` for every statement
   * inside. Isolation is READ COMMITTED unless `fn` sets it; use row locks for capacity checks.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Executes several statements separated by semicolons (no parameters): migrations. */
  exec(sql: string): Promise<void>;
  /**
   * Calls `onNotify` with the payload of every `NOTIFY channel` (`pg_notify`) committed by any
   * process on this database; returns an unsubscribe function. Notifications may be lost when a
   * connection drops: callers that must not miss a change also re-read periodically.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** One versioned migration. Versions are unique integers; see `src/app/migrations.ts` for ranges. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * An `int[]` query parameter as PostgreSQL's array literal (`{1,2,3}`; `null` stays NULL): for
 * thousands of ids one string is far cheaper to send than a JS array the driver escapes element by
 * element. Use with a `$n::int[]` cast.
 */
export function intArrayLiteral(ids: readonly number[] | null): string | null {
  if (ids === null) return null;
  for (const i of ids) if (!Number.isSafeInteger(i)) throw new Error(`not an integer id: ${i}`);
  return `{${ids.join(',')}}`;
}

/**
 * The number a `real` (single precision) column gives back for `x`: PostgreSQL stores the nearest
 * float4 and prints the shortest decimal that reads back as that float4 (the closest such one when
 * several are as short, the even one on a tie); drivers parse that decimal as a double. Lets code
 * that keeps a value in memory use exactly what a read-back of the stored row would give.
 */
export function realAsRead(x: number): number {
  const f = Math.fround(x);
  if (!Number.isFinite(f) || f === 0) return f;
  // |f| = m · 2^e exactly
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, Math.abs(f));
  const bits = view.getUint32(0);
  const biased = (bits >>> 23) & 0xff;
  const m = BigInt(biased === 0 ? bits & 0x7fffff : (bits & 0x7fffff) | 0x800000);
  const e = biased === 0 ? -149 : biased - 150;
  const sign = f < 0 ? '-' : '';
  const pow = (b: bigint, n: number): bigint => b ** BigInt(n);
  for (let p = 1; p <= 9; p++) {
    const [mant, expPart] = Math.abs(f)
      .toExponential(p - 1)
      .split('e');
    const digits = BigInt(mant.replace('.', ''));
    const exp = Number(expPart) - (p - 1);
    // distances to |f| exactly, both sides scaled by 10^max(0, −exp) · 2^max(0, −e)
    const fScaled = m * pow(2n, Math.max(e, 0)) * pow(10n, Math.max(0, -exp));
    let best: { d: bigint; dist: bigint } | undefined;
    for (const d of [digits - 1n, digits, digits + 1n]) {
      if (d <= 0n) continue;
      if (Math.fround(Number(`${d}e${exp}`)) !== Math.abs(f)) continue;
      const diff = d * pow(10n, Math.max(exp, 0)) * pow(2n, Math.max(0, -e)) - fScaled;
      const dist = diff < 0n ? -diff : diff;
      if (best === undefined || dist < best.dist || (dist === best.dist && d % 2n === 0n)) best = { d, dist };
    }
    if (best !== undefined) return Number(`${sign}${best.d}e${exp}`);
  }
  return f;
}
