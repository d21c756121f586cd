/**
 * Lists the source files longer than a line limit and the functions longer than another (tests
 * excluded), longest first: `npx tsx scripts/code-size.ts [dir] [maxFileLines] [maxFunctionLines]`
 * (defaults: src, 400, 80). Functions are found with the TypeScript parser: declarations,
 * methods, constructors, accessors, function expressions and arrow functions, each measured from
 * its first to its last line.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const [dir = 'src', maxFile = '400', maxFn = '80'] = process.argv.slice(2);

function sources(d: string): string[] {
  return readdirSync(d).flatMap((f) => {
    const p = join(d, f);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

/** The name a function node is known by in a listing. */
function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name !== undefined) return named.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent)) return parent.name.getText(sf);
  if (parent !== undefined && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  return '(anonymous)';
}

const longFiles: Array<[number, string]> = [];
const longFunctions: Array<[number, string]> = [];
for (const file of sources(dir)) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length;
  if (lines > Number(maxFile)) longFiles.push([lines, file]);
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const n = end - start + 1;
      if (n > Number(maxFn)) longFunctions.push([n, `${file}:${start + 1} ${nameOf(node, sf)}`]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
const byLength = (a: [number, string], b: [number, string]) => b[0] - a[0] || a[1].localeCompare(b[1]);
console.log(`files over ${maxFile} lines (${longFiles.length}):`);
for (const [n, f] of longFiles.sort(byLength)) console.log(`  ${String(n).padStart(5)}  ${f}`);
console.log(`functions over ${maxFn} lines (${longFunctions.length}):`);
for (const [n, f] of longFunctions.sort(byLength)) console.log(`  ${String(n).padStart(5)}  ${f}`);
