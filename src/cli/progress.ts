/**
 * Progress reporting for long CLI steps: a bar with counts and rate on a terminal, plain log lines
 * (at most one every few seconds, plus the final count) when output is not a terminal.
 */
import cliProgress from 'cli-progress';

/** A progress sink: `update(done, total?)` as work advances, `stop()` at the end. */
export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

/** Creates a progress reporter for a step named `label` counting `unit`s. */
export function createProgress(label: string, unit: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar({
      format: `${label.padEnd(14)} [{bar}] {value}/{total} ${unit} | {rate} ${unit}/s | {duration_formatted}`,
      hideCursor: true,
      stream,
    }, cliProgress.Presets.shades_classic);
    const start = Date.now();
    let started = false;
    return {
      update(done, total) {
        const rate = Math.round(done / Math.max(0.001, (Date.now() - start) / 1000));
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
  const line = (done: number, total?: number) => {
    const s = (Date.now() - start) / 1000;
    const rate = Math.round(done / Math.max(0.001, s));
    stream.write(`${label}: ${done}${total !== undefined ? `/${total}` : ''} ${unit} (${rate} ${unit}/s, ${s.toFixed(1)} s)\n`);
  };
  return {
    update(done, total) {
      last = done;
      lastTotal = total;
      if (Date.now() - lastLog >= 2000) {
        lastLog = Date.now();
        line(done, total);
      }
    },
    stop() {
      line(last, lastTotal);
    },
  };
}
