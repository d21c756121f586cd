/**
 * One owner per embedded database. PGlite is single-process: two processes opening the same
 * files corrupt them. Every process that opens `DATA_DIR/db` first takes this lock and keeps it
 * until it closes the database; a process that finds it taken learns who holds it (a server and
 * its URL, or a CLI command) and can work through that server or stop.
 *
 * The lock is a Linux abstract-namespace Unix socket named after the data directory's real path:
 * binding it is atomic, and the kernel releases it when its process ends, however it ends (a
 * `kill -9` leaves nothing stale to clean up). Connecting to it answers the owner's description.
 * `DATA_DIR/owner.json` repeats that description for people; it is informational only. Elsewhere
 * than Linux the lock is a file created exclusively, taken over when its process is gone.
 * Abstract sockets are per network namespace: containers sharing one data directory must share
 * the network namespace too (or use PostgreSQL).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** Who holds a data directory. */
export interface DataDirOwner {
  pid: number;
  /** `serve`, or the CLI command (`ingest probes`, `import`, …) */
  role: string;
  /** where the owning server answers, once it listens (loopback URL) */
  url?: string;
  startedAt: string;
  host: string;
}

/** The data directory is held by another process. */
export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner,
  ) {
    super(`the embedded database in ${dataDir} is in use by ${describeOwner(owner)}`);
    this.name = 'DataDirBusyError';
  }
}

/** "the streetwise server (pid 123, http://127.0.0.1:8080)" or "`streetwise import` (pid 123)". */
export function describeOwner(o: DataDirOwner): string {
  return o.role === 'serve'
    ? `the streetwise server (pid ${o.pid}${o.url ? `, ${o.url}` : ''})`
    : `\`streetwise ${o.role}\` (pid ${o.pid})`;
}

/** A held lock. */
export interface DataDirLock {
  readonly owner: DataDirOwner;
  /** Updates the description others read (e.g. the URL once the server listens). */
  update(patch: Partial<Pick<DataDirOwner, 'url' | 'role'>>): void;
  release(): Promise<void>;
}

const useAbstractSocket = process.platform === 'linux';

function lockName(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const real = realpathSync(dataDir);
  return `\0streetwise-db-${createHash('sha256').update(real).digest('hex').slice(0, 32)}`;
}

/** Asks the holder of an abstract lock socket who it is; undefined when nobody holds it. */
function askOwner(name: string, timeoutMs = 2000): Promise<DataDirOwner | undefined> {
  return new Promise((resolve, reject) => {
    const s = createConnection(name);
    let buf = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error('the data directory lock holder did not answer'));
    }, timeoutMs);
    s.setEncoding('utf8');
    s.on('data', (d) => (buf += d));
    s.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buf) as DataDirOwner);
      } catch {
        reject(new Error('the data directory lock holder answered garbage'));
      }
    });
    s.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(undefined);
      else reject(err);
    });
  });
}

function writeOwnerFile(dataDir: string, owner: DataDirOwner): void {
  const file = join(dataDir, 'owner.json');
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(owner, null, 2)}\n`);
  renameSync(tmp, file);
}

/** Who holds `dataDir` now, or undefined. */
export async function findDataDirOwner(dataDir: string): Promise<DataDirOwner | undefined> {
  if (useAbstractSocket) return askOwner(lockName(dataDir));
  return fileLockOwner(join(dataDir, '.db.lock'));
}

/**
 * Takes the lock of `dataDir` for this process, or throws DataDirBusyError naming the holder.
 * @example
 * const lock = await acquireDataDirLock('./data', 'serve');
 * try { … } finally { await lock.release(); }
 */
export async function acquireDataDirLock(dataDir: string, role: string): Promise<DataDirLock> {
  const owner: DataDirOwner = { pid: process.pid, role, startedAt: new Date().toISOString(), host: hostname() };
  if (!useAbstractSocket) return acquireFileLock(dataDir, owner);
  const name = lockName(dataDir);
  const server: Server = createServer((sock) => sock.end(JSON.stringify(owner)));
  const bound = await new Promise<boolean>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)));
    server.listen(name, () => resolve(true));
  });
  if (!bound) {
    const holder = await askOwner(name).catch(() => undefined);
    throw new DataDirBusyError(dataDir, holder ?? { pid: 0, role: 'unknown', startedAt: '', host: hostname() });
  }
  server.unref();
  writeOwnerFile(dataDir, owner);
  return {
    owner,
    update(patch) {
      Object.assign(owner, patch);
      writeOwnerFile(dataDir, owner);
    },
    async release() {
      rmSync(join(dataDir, 'owner.json'), { force: true });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** True when a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function fileLockOwner(file: string): DataDirOwner | undefined {
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as DataDirOwner;
    return alive(o.pid) ? o : undefined;
  } catch {
    return undefined;
  }
}

/** The portable fallback: a lock file created exclusively; a dead holder's file is taken over. */
function acquireFileLock(dataDir: string, owner: DataDirOwner): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, '.db.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify(owner));
      closeSync(fd);
      writeOwnerFile(dataDir, owner);
      return {
        owner,
        update(patch) {
          Object.assign(owner, patch);
          writeFileSync(file, JSON.stringify(owner));
          writeOwnerFile(dataDir, owner);
        },
        async release() {
          rmSync(join(dataDir, 'owner.json'), { force: true });
          rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = fileLockOwner(file);
      if (holder) throw new DataDirBusyError(dataDir, holder);
      // the holder is gone: move its file aside (atomic; only one taker succeeds) and retry
      try {
        renameSync(file, `${file}.stale-${process.pid}`);
        rmSync(`${file}.stale-${process.pid}`, { force: true });
      } catch {
        /* another process took it over */
      }
    }
  }
  const holder = fileLockOwner(file);
  throw new DataDirBusyError(dataDir, holder ?? { pid: 0, role: 'unknown', startedAt: '', host: hostname() });
}
