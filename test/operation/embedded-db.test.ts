/**
 * The embedded database as a server runs it: PGlite in its own thread behind the Db port, and the
 * data directory's lock that keeps every other process out of its files.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbedded, remoteDb } from '../../src/store/remote-db.js';
import { acquireDataDirLock, findDataDirOwner, DataDirBusyError } from '../../src/store/data-dir-lock.js';
import { openDbFull } from '../../src/store/index.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'streetwise-emb-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('PGlite in its own thread', () => {
  it('answers queries, commits and rolls back transactions, and keeps PostgreSQL error fields', async () => {
    const db = await openEmbedded();
    try {
      await db.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES ($1, $2)', [1, 'a']);
        await tx.query('INSERT INTO t VALUES ($1, $2)', [2, 'b']);
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO t VALUES ($1, $2)', [3, 'c']);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      const rows = (await db.query<{ id: number; v: string }>('SELECT id, v FROM t ORDER BY id')).rows;
      expect(rows).toEqual([
        { id: 1, v: 'a' },
        { id: 2, v: 'b' },
      ]);
      const err = (await db.query('INSERT INTO t VALUES (1, $1)', ['dup']).catch((e: unknown) => e)) as {
        code?: string;
        message: string;
      };
      expect(err.code).toBe('23505');
      expect(err.message).toMatch(/duplicate key/);
      const upd = await db.query('UPDATE t SET v = $1 WHERE id <= 2', ['z']);
      expect(upd.rowCount).toBe(2);
    } finally {
      await db.close();
    }
  });

  it('serves a second connection (another thread would hold it) and delivers NOTIFY to every listener', async () => {
    const db = await openEmbedded();
    try {
      const other = remoteDb(db.connect());
      const got: string[] = [];
      await db.listen('ch', (p) => got.push(`owner:${p}`));
      await other.listen('ch', (p) => got.push(`other:${p}`));
      await other.transaction(async (tx) => {
        await tx.query("SELECT pg_notify('ch', 'inside')");
        // not delivered before commit
        await new Promise((r) => setTimeout(r, 50));
        expect(got).toEqual([]);
      });
      for (let i = 0; i < 50 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      expect(got.sort()).toEqual(['other:inside', 'owner:inside']);
      expect((await other.query<{ n: number }>('SELECT 41 + 1 AS n')).rows[0].n).toBe(42);
      await other.close();
    } finally {
      await db.close();
    }
  });

  it('keeps what was committed across a close and a reopen of the same directory', async () => {
    const dir = tempDir();
    const a = await openDbFull({ dataDir: dir }, 'test');
    await a.db.exec('CREATE TABLE kept (x int)');
    await a.db.query('INSERT INTO kept VALUES (7)');
    await a.db.close();
    const b = await openDbFull({ dataDir: dir }, 'test');
    expect((await b.db.query<{ x: number }>('SELECT x FROM kept')).rows).toEqual([{ x: 7 }]);
    await b.db.close();
  });
});

describe('one owner per data directory', () => {
  it('refuses a second owner and names the first; releasing frees the directory', async () => {
    const dir = tempDir();
    const lock = await acquireDataDirLock(dir, 'serve');
    lock.update({ url: 'http://127.0.0.1:1234' });
    const err = await acquireDataDirLock(dir, 'apps create').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirBusyError);
    expect((err as DataDirBusyError).owner).toMatchObject({
      pid: process.pid,
      role: 'serve',
      url: 'http://127.0.0.1:1234',
    });
    expect((err as Error).message).toMatch(/in use by the streetwise server \(pid \d+, http:\/\/127\.0\.0\.1:1234\)/);
    expect(await findDataDirOwner(dir)).toMatchObject({ role: 'serve' });
    expect(JSON.parse(readFileSync(join(dir, 'owner.json'), 'utf8')).role).toBe('serve');
    await lock.release();
    expect(await findDataDirOwner(dir)).toBeUndefined();
    expect(existsSync(join(dir, 'owner.json'))).toBe(false);
    const again = await acquireDataDirLock(dir, 'import');
    await again.release();
  });

  it('opening the embedded database takes the lock: a second open fails before touching the files', async () => {
    const dir = tempDir();
    const first = await openDbFull({ dataDir: dir }, 'serve');
    await expect(openDbFull({ dataDir: dir }, 'ingest probes')).rejects.toBeInstanceOf(DataDirBusyError);
    await first.db.close();
    const second = await openDbFull({ dataDir: dir }, 'ingest probes');
    await second.db.close();
  });

  it('a holder killed with SIGKILL leaves nothing stale: the next process takes the directory at once', async () => {
    const dir = tempDir();
    const script = `import { acquireDataDirLock } from ${JSON.stringify(new URL('../../src/store/data-dir-lock.ts', import.meta.url).href)};
      await acquireDataDirLock(${JSON.stringify(dir)}, 'serve'); console.log('held'); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('held')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    expect(await findDataDirOwner(dir)).toMatchObject({ pid: child.pid, role: 'serve' });
    await expect(acquireDataDirLock(dir, 'serve')).rejects.toBeInstanceOf(DataDirBusyError);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    // owner.json of the dead holder is still there, but it is only a description
    expect(existsSync(join(dir, 'owner.json'))).toBe(true);
    expect(await findDataDirOwner(dir)).toBeUndefined();
    const lock = await acquireDataDirLock(dir, 'serve');
    expect(JSON.parse(readFileSync(join(dir, 'owner.json'), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });
});
