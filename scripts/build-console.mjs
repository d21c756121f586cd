#!/usr/bin/env node
// Builds the map console into dist/console/ (run by `npm run build`, so by `npm install` too):
// the page, its script (console/src bundled with esbuild), MapLibre GL JS and its worker as
// shipped by the maplibre-gl package, the Noto Sans font files of @fontsource/noto-sans (MapLibre
// renders label glyphs from them in the browser), and gzip/brotli copies of the larger files.
// Everything comes from installed packages: nothing is fetched, at build or at run time.
import { build } from 'esbuild';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'console');
const require = createRequire(join(root, 'package.json'));
const pkgDir = (name) => dirname(require.resolve(`${name}/package.json`));

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'vendor'), { recursive: true });
mkdirSync(join(out, 'fonts'), { recursive: true });

// MapLibre stays a separate module: it finds its worker beside itself (import.meta.url).
const maplibre = join(pkgDir('maplibre-gl'), 'dist');
for (const f of ['maplibre-gl.mjs', 'maplibre-gl-worker.mjs', 'maplibre-gl.css'])
  copyFileSync(join(maplibre, f), join(out, 'vendor', f));
copyFileSync(join(pkgDir('maplibre-gl'), 'LICENSE.txt'), join(out, 'vendor', 'maplibre-gl-LICENSE.txt'));

const fonts = join(pkgDir('@fontsource/noto-sans'), 'files');
for (const subset of ['latin', 'latin-ext']) {
  for (const weight of ['400', '700'])
    copyFileSync(
      join(fonts, `noto-sans-${subset}-${weight}-normal.woff2`),
      join(out, 'fonts', `noto-sans-${subset}-${weight}-normal.woff2`),
    );
}
copyFileSync(join(pkgDir('@fontsource/noto-sans'), 'LICENSE'), join(out, 'fonts', 'LICENSE-OFL.txt'));

await build({
  entryPoints: [join(root, 'console', 'src', 'main.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  legalComments: 'linked',
  logLevel: 'warning',
  plugins: [
    {
      name: 'maplibre-beside',
      setup(b) {
        b.onResolve({ filter: /^maplibre-gl$/ }, () => ({ path: './vendor/maplibre-gl.mjs', external: true }));
      },
    },
  ],
});
for (const f of ['index.html', 'console.css']) copyFileSync(join(root, 'console', f), join(out, f));

// Pre-compressed copies, served by @fastify/static (preCompressed) without compressing per request.
const walk = (dir) =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
for (const file of walk(out)) {
  if (!/\.(mjs|js|css|html|map)$/.test(file) || statSync(file).size < 1024) continue;
  const data = readFileSync(file);
  writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
  writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }));
}
console.log(`console built in ${out}`);
