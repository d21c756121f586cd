#!/usr/bin/env node
// Entry point of the streetwise CLI: runs the compiled CLI from dist/ (built by `npm install`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(entry)) {
  console.error(`streetwise is not built: run \`npm install\` (or \`npm run build\`) in ${root}`);
  process.exit(1);
}
await import(entry);
