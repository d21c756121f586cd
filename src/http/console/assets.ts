/** Where the built console lives: `<package root>/dist/console` (written by `npm run build`). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest directory above this module holding streetwise's package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'streetwise')
      return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`streetwise package.json not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** Directory of the built console (may not exist when the build has not run). */
export function consoleAssetsDir(): string {
  return join(packageRoot(), 'dist', 'console');
}
