/**
 * Every file the code's comments and the docs name exists: paths from the repository root
 * (`src/…`, `test/…`, `docs/…`, `bench/…`, `scripts/…`, folders and globs included) exactly, and
 * shorter paths (`routing/engine.ts`, `layout.ts`) as the end of some file's path (`.js` names in
 * comments also match the `.ts` source). A renamed or deleted file leaves no stale name behind.
 */
import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Folders holding code and docs, from the repository root. */
const CODE_DIRS = ['src', 'test', 'bench', 'scripts', 'console/src', 'bin'];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'out']);

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return SKIP_DIRS.has(f) ? [] : walk(p);
    return [p];
  });
}

/** The comments of a source file (block and line comments; string contents may slip in, harmlessly). */
function commentsOf(text: string): string {
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g)].map((m) => m[0]).join('\n');
}

/** Paths from the repository root named in `text`: `src/…`, `test/…`, `docs/…`, `bench/…`, `scripts/…`. */
function rootedPaths(text: string): string[] {
  const re = /(?<![\w./@:$-])((?:src|test|docs|bench|scripts)\/[A-Za-z0-9_.*\-/]*[A-Za-z0-9_*\-/])/g;
  return [...text.matchAll(re)].map((m) => m[1]);
}

/** Other file names in `text` ending in .ts, .md, .mjs or .js (`routing/engine.ts`, `./host.js`). */
function fileNames(text: string): string[] {
  const re = /(?<![\w./@:$*-])((?:\.\.?\/)*(?:[A-Za-z0-9_-]+\/)*[A-Za-z0-9_-]+\.(?:ts|md|mjs|js))(?![\w/*])/g;
  return [...text.matchAll(re)].map((m) => m[1]);
}

const files = [...CODE_DIRS.flatMap(walk), ...walk('docs'), 'README.md', ...readdirSync('.')];
const fileSet = new Set(files);

/** True when a rooted path exists (a glob: when some file matches it; `docs/decisions/031`: a numbered file). */
function rootedExists(p: string): boolean {
  if (!p.includes('*')) return existsSync(p) || files.some((f) => f.startsWith(`${p}-`));
  const re = new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  return files.some((f) => re.test(f));
}

/** True when some file's path is, or ends with, the name (a `.js` name also as `.ts`). */
function nameExists(name: string): boolean {
  const bare = name.replace(/^(\.\.?\/)+/, '');
  const first = bare.split('/')[0];
  // a path inside an npm package (`stream-json/core/parser.js`), or a word like Node.js
  if (bare.includes('/') && existsSync(join('node_modules', first))) return true;
  if (bare === 'Node.js') return true;
  const names = bare.endsWith('.js') ? [bare, `${bare.slice(0, -3)}.ts`] : [bare];
  return names.some((n) => fileSet.has(n) || files.some((f) => f.endsWith(`/${n}`)));
}

/** Stale names as "file: name", over code comments and the docs. */
function staleNames(): string[] {
  const out: string[] = [];
  for (const f of files) {
    const isDoc = f.endsWith('.md') && (f === 'README.md' || f.startsWith('docs/'));
    const isCode = /\.(ts|js|mjs)$/.test(f) && CODE_DIRS.some((d) => f.startsWith(`${d}/`));
    // this file's own examples are names that do not exist on purpose
    if ((!isDoc && !isCode) || f === 'test/platform/named-paths.test.ts') continue;
    const text = isDoc ? readFileSync(f, 'utf8') : commentsOf(readFileSync(f, 'utf8'));
    for (const p of rootedPaths(text)) if (!rootedExists(p)) out.push(`${f}: ${p}`);
    for (const n of fileNames(text)) if (!n.startsWith('dist/') && !nameExists(n)) out.push(`${f}: ${n}`);
  }
  return [...new Set(out)];
}

describe('files named in code comments and docs', () => {
  it('finds rooted paths, globs and short names in text', () => {
    const text = 'see `src/routing/engine.ts`, docs/img/console-*.png and layout.ts (or ../store/thread.js).';
    expect(rootedPaths(text)).toEqual(['src/routing/engine.ts', 'docs/img/console-*.png']);
    expect(fileNames(text)).toEqual(['src/routing/engine.ts', 'layout.ts', '../store/thread.js']);
    expect(commentsOf('const a = 1; // see x.ts\n/* and\n y.md */ const b = "z";')).toBe(
      '// see x.ts\n/* and\n y.md */',
    );
  });

  it('reports a name no file has', () => {
    expect(rootedExists('src/routing/engine.ts')).toBe(true);
    expect(rootedExists('docs/decisions/*.md')).toBe(true);
    expect(rootedExists('docs/decisions/040')).toBe(true);
    expect(rootedExists('docs/decisions/999')).toBe(false);
    expect(rootedExists('src/routing/no-such-file.ts')).toBe(false);
    expect(nameExists('search/layout.ts')).toBe(true);
    expect(nameExists('./layout.js')).toBe(true);
    expect(nameExists('server.ts')).toBe(false);
  });

  it('every one of them exists', () => {
    expect(staleNames()).toEqual([]);
  });
});
