/**
 * A small HTTP/1.1 load client over raw sockets for the benchmarks: requests are prebuilt byte
 * strings, answers are read to their Content-Length, latency is taken with the high-resolution
 * clock from the first byte written to the last byte read (including connect when a new
 * connection is made per request). Closed loop (as fast as answers come) or open loop at a fixed
 * rate. Runs in the benchmark's own process, never inside the server.
 */
import { connect, type Socket } from 'node:net';

/** One request: path with query, method and optional body. */
export interface LoadRequest {
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** What a run measured. */
export interface LoadResult {
  /** latencies, ms, in completion order */
  ms: number[];
  /** answers by HTTP status */
  statuses: Map<number, number>;
  errors: number;
  durationMs: number;
  /** one failed answer (status and the start of its body), for the report */
  sampleFailure?: string;
}

export function build(host: string, r: LoadRequest, keepAlive: boolean): Buffer {
  const body = r.body ?? '';
  const lines = [
    `${r.method ?? 'GET'} ${r.path} HTTP/1.1`,
    `Host: ${host}`,
    `Connection: ${keepAlive ? 'keep-alive' : 'close'}`,
  ];
  for (const [k, v] of Object.entries(r.headers ?? {})) lines.push(`${k}: ${v}`);
  if (body !== '' || r.method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** Reads one response from `sock`; resolves with its status once the whole body arrived. */
class ResponseReader {
  private buf: Buffer = Buffer.alloc(0);
  private want = -1;
  private status = 0;
  private done: ((status: number) => void) | null = null;
  /** the body of the last answer that was not 200 (first 300 bytes) */
  lastErrorBody = '';
  private fail: ((err: Error) => void) | null = null;

  constructor(sock: Socket) {
    sock.on('data', (d: Buffer) => {
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      this.check();
    });
    sock.on('error', (err) => this.fail?.(err));
    sock.on('close', () => this.fail?.(new Error('connection closed')));
  }

  next(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.done = resolve;
      this.fail = reject;
      this.check();
    });
  }

  private check(): void {
    if (this.done === null) return;
    if (this.want < 0) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buf.subarray(0, end).toString('latin1');
      this.status = Number(head.slice(9, 12));
      const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (!m) {
        this.fail?.(new Error('response without Content-Length'));
        return;
      }
      this.want = end + 4 + Number(m[1]);
    }
    if (this.buf.length < this.want) return;
    if (this.status !== 200)
      this.lastErrorBody =
        this.buf.subarray(0, Math.min(this.want, 600)).toString('latin1').split('\r\n\r\n')[1]?.slice(0, 300) ?? '';
    this.buf = this.buf.subarray(this.want);
    this.want = -1;
    const d = this.done;
    this.done = null;
    this.fail = null;
    d(this.status);
  }
}

/** Options of `runLoad`. */
export interface LoadOptions {
  host: string;
  port: number;
  requests: readonly LoadRequest[];
  /** concurrent connections (closed loop) or concurrent senders (open loop) */
  connections: number;
  /** a new TCP connection for every request (Connection: close) */
  newConnection: boolean;
  /** stop after this many requests in all … */
  total?: number;
  /** … or after this long, ms */
  durationMs?: number;
  /** open loop: requests per second over all connections (default: closed loop) */
  rate?: number;
}

/** One connection of a load: opened on first use, and again after a failure or `close()`. */
export class LoadConnection {
  private sock: Socket | null = null;
  private reader: ResponseReader | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Sends `req` and resolves with the answer's status once its whole body has arrived. */
  async exchange(req: Buffer): Promise<number> {
    try {
      if (this.sock === null) {
        this.sock = await new Promise<Socket>((resolve, reject) => {
          const s = connect({ host: this.host, port: this.port, noDelay: true }, () => resolve(s));
          s.once('error', reject);
        });
        this.reader = new ResponseReader(this.sock);
      }
      this.sock.write(req);
      return await this.reader!.next();
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** The body of the last answer that was not 200 (first 300 bytes). */
  get lastErrorBody(): string {
    return this.reader?.lastErrorBody ?? '';
  }

  close(): void {
    this.sock?.destroy();
    this.sock = null;
  }
}

/** Runs the load; requests are taken round-robin from `requests`. */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const built = o.requests.map((r) => build(`${o.host}:${o.port}`, r, !o.newConnection));
  const res: LoadResult = { ms: [], statuses: new Map(), errors: 0, durationMs: 0 };
  let issued = 0;
  const t0 = performance.now();
  const deadline = o.durationMs !== undefined ? t0 + o.durationMs : Infinity;
  const limit = o.total ?? Infinity;
  const intervalMs = o.rate !== undefined ? (1000 * o.connections) / o.rate : 0;
  const worker = async (k: number): Promise<void> => {
    const conn = new LoadConnection(o.host, o.port);
    let nextAt = t0 + (intervalMs * k) / o.connections;
    for (;;) {
      if (issued >= limit || performance.now() >= deadline) break;
      if (intervalMs > 0) {
        const wait = nextAt - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        nextAt += intervalMs;
        if (performance.now() >= deadline) break;
      }
      const req = built[issued++ % built.length];
      const start = performance.now();
      try {
        const status = await conn.exchange(req);
        res.ms.push(performance.now() - start);
        res.statuses.set(status, (res.statuses.get(status) ?? 0) + 1);
        if (status !== 200 && res.sampleFailure === undefined)
          res.sampleFailure = `HTTP ${status}: ${conn.lastErrorBody}`;
      } catch (err) {
        res.errors++;
        res.sampleFailure ??= `error: ${(err as Error).message}`;
      }
      if (o.newConnection) conn.close();
    }
    conn.close();
  };
  await Promise.all(Array.from({ length: o.connections }, (_, k) => worker(k)));
  res.durationMs = performance.now() - t0;
  return res;
}

/** The p-quantile (0..1) of `ms`. */
export function quantile(ms: readonly number[], p: number): number {
  if (ms.length === 0) return NaN;
  const s = [...ms].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}
