/**
 * Progress reporting for long CLI steps: on a terminal a bar with done/total, rate, elapsed time
 * and time left; otherwise plain log lines (at most one every 2 s while counts move, and one every
 * 10 s while they do not, so a long step is never silent), plus the final count. Byte counts are
 * shown in MB. `startStep` covers steps without counts (a line with the elapsed time).
 */
import cliProgress from 'cli-progress';

/** A progress sink: `update(done, total?)` as work advances, `stop()` at the end. */
export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

/** Seconds between log lines while counts move / while nothing moves (not a terminal). */
const LOG_EVERY_MS = 2000;
const HEARTBEAT_MS = 10_000;

/** Formats a duration for people: `42 s`, `3 min 05 s`, `2 h 07 min`. */
export function formatDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '?';
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(Math.round(s - m * 60)).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** One progress line without the bar: `12.5/104.9 MB (12%), 20.1 MB/s, 0.6 s elapsed, 4.6 s left`. */
export function progressLine(done: number, total: number | undefined, unit: string, elapsedS: number): string {
  const bytes = unit === 'bytes';
  const f = (n: number): string => (bytes ? (n / 1e6).toFixed(1) : String(Math.round(n)));
  const u = bytes ? 'MB' : unit;
  const rate = done / Math.max(0.001, elapsedS);
  const rateText = bytes ? (rate / 1e6).toFixed(1) : String(Math.round(rate));
  let s = `${f(done)}${total !== undefined ? `/${f(total)}` : ''} ${u}`;
  if (total !== undefined && total > 0) s += ` (${Math.floor((100 * Math.min(done, total)) / total)}%)`;
  s += `, ${rateText} ${u}/s, ${formatDuration(elapsedS)} elapsed`;
  if (total !== undefined && done > 0 && done < total) s += `, ${formatDuration((total - done) / rate)} left`;
  return s;
}

/** Creates a progress reporter for a step named `label` counting `unit`s (`bytes` are shown as MB). */
export function createProgress(label: string, unit: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  const bytes = unit === 'bytes';
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label.padEnd(14)} [{bar}] {value}/{total} ${bytes ? 'MB' : unit} | {rate} ${bytes ? 'MB' : unit}/s | {duration_formatted} | {eta_formatted} left`,
        hideCursor: true,
        stream,
        formatValue: (v: number, _o: unknown, type: string) =>
          bytes && (type === 'value' || type === 'total') ? (v / 1e6).toFixed(1) : String(v),
      },
      cliProgress.Presets.shades_classic,
    );
    const start = Date.now();
    let started = false;
    return {
      update(done, total) {
        const r = done / Math.max(0.001, (Date.now() - start) / 1000);
        const rate = bytes ? (r / 1e6).toFixed(1) : Math.round(r);
        if (!started) {
          bar.start(total ?? done, done, { rate });
          started = true;
        } else {
          if (total !== undefined) bar.setTotal(total);
          bar.update(done, { rate });
        }
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  const start = Date.now();
  let lastLog = 0;
  let last = 0;
  let lastTotal: number | undefined;
  let updated = false;
  let logged: string | undefined;
  const line = (): void => {
    lastLog = Date.now();
    logged = `${last}/${lastTotal}`;
    stream.write(`${label}: ${progressLine(last, lastTotal, unit, (Date.now() - start) / 1000)}\n`);
  };
  const heartbeat = setInterval(() => {
    if (updated && Date.now() - lastLog >= HEARTBEAT_MS) line();
  }, HEARTBEAT_MS / 2);
  heartbeat.unref();
  return {
    update(done, total) {
      last = done;
      lastTotal = total;
      updated = true;
      if (Date.now() - lastLog >= LOG_EVERY_MS) line();
    },
    stop() {
      clearInterval(heartbeat);
      // The final count, unless the last line already said it.
      if (logged !== `${last}/${lastTotal}`) line();
    },
  };
}

/** A step without counts: says when it starts, that it is still running (every 10 s), and how long it took. */
export function startStep(label: string, stream: NodeJS.WriteStream = process.stderr): { stop(): void } {
  const start = Date.now();
  const elapsed = (): string => formatDuration((Date.now() - start) / 1000);
  if (stream.isTTY) {
    const draw = (): void => {
      stream.write(`\r${label}… ${elapsed()}\x1b[K`);
    };
    draw();
    const t = setInterval(draw, 1000);
    t.unref();
    return {
      stop() {
        clearInterval(t);
        stream.write(`\r${label}: done in ${elapsed()}\x1b[K\n`);
      },
    };
  }
  stream.write(`${label}…\n`);
  const t = setInterval(() => stream.write(`${label}: still running, ${elapsed()} elapsed\n`), HEARTBEAT_MS);
  t.unref();
  return {
    stop() {
      clearInterval(t);
      stream.write(`${label}: done in ${elapsed()}\n`);
    },
  };
}
