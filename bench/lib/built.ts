/**
 * Benchmarks that start a server measure the compiled code users run (`dist/`, from `npm run
 * build`), not the source through tsx: this builds it when any source file is newer.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtimeMs(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtimeMs(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Runs `npm run build` unless dist/ is newer than every file under src/ and console/. */
export function ensureBuilt(): void {
  const entry = 'dist/cli/main.js';
  const src = Math.max(newestMtimeMs('src'), existsSync('console') ? newestMtimeMs('console') : 0);
  if (existsSync(entry) && statSync(entry).mtimeMs >= src && newestMtimeMs('dist') >= src) return;
  console.log('building dist/ (npm run build) so the server runs compiled code…');
  execFileSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
