/**
 * The example requests of the README and docs/: `curl` commands, HTTP-style request blocks
 * (`GET /lots?…` then headers, a blank line and the body) in fenced code blocks, and the
 * `{ request, response }` JSON files of docs/api/analytics. Each example carries the status the
 * text documents for it (`→ 400`, a JSON file's `response.status`), if any.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One example request as written in the docs (placeholders not yet substituted). */
export interface DocExample {
  /** file:line where it is written */
  where: string;
  method: string;
  /** path and query, or a full URL */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** documented status, if the docs give one */
  status?: number;
  /** the docs mark it as an error example (`(invalid)`, `(no token)`, an "Error" heading) */
  error: boolean;
  /** the note written after the request line (`invalid`, `no token`) */
  note?: string;
}

/** Markdown files of the repository's docs: README.md and docs/**.md. */
export function docFiles(root: string): string[] {
  const out = [join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md') || (name.endsWith('.json') && dir.includes(join('docs', 'api')))) out.push(p);
    }
  };
  walk(join(root, 'docs'));
  return out;
}

/** Splits a shell command line into words (single and double quotes, no escapes inside single quotes). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

function parseCurl(command: string, where: string): DocExample | undefined {
  const words = shellWords(command);
  let method = 'GET';
  let url = '';
  const headers: Record<string, string> = {};
  let body: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === '-X') method = words[++i];
    else if (w === '-H') {
      const h = words[++i];
      const c = h.indexOf(':');
      headers[h.slice(0, c).trim().toLowerCase()] = h.slice(c + 1).trim();
    } else if (w === '-d' || w === '--data' || w === '--data-raw') body = words[++i];
    else if (/^https?:\/\//.test(w)) url = w;
  }
  if (!url) return undefined;
  if (body !== undefined && method === 'GET') method = 'POST';
  return { where, method, url, headers, body, error: false };
}

/** Every example request of one markdown file. */
export function examplesOfMarkdown(file: string, text: string): DocExample[] {
  const out: DocExample[] = [];
  const lines = text.split('\n');
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    if (/^#+ /.test(lines[i])) heading = lines[i];
    if (!lines[i].startsWith('```')) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end].startsWith('```')) end++;
    const block = lines.slice(start, end);
    i = end;
    // the status the text after the block documents ("→ 400"), up to the next block
    let status: number | undefined;
    for (let k = end + 1; k < lines.length && !lines[k].startsWith('```'); k++) {
      const m = /^→\s*(\d{3})\b/.exec(lines[k].trim());
      if (m) {
        status = Number(m[1]);
        break;
      }
    }
    // curl commands (continued lines joined), anywhere in the block
    for (let k = 0; k < block.length; k++) {
      const l = block[k].trim();
      const c = l.indexOf('curl ');
      if (c < 0 || l.startsWith('#')) continue;
      let cmd = l.slice(c);
      while (cmd.endsWith('\\') && k + 1 < block.length) cmd = `${cmd.slice(0, -1)} ${block[++k].trim()}`;
      // `TOKEN=$(curl … | sed …)`: the request is the part inside $( … )
      cmd = cmd.replace(/\s*\|.*$/, '').replace(/\)$/, '');
      const ex = parseCurl(cmd, `${file}:${start + k + 1}`);
      if (ex) out.push({ ...ex, status, error: status !== undefined && status >= 400 });
    }
    // an HTTP-style request block
    const first = block.findIndex((l) => l.trim() !== '');
    const m = first < 0 ? null : /^(GET|POST|PUT|PATCH|DELETE) (\/.+?)(\s{2,}\((.+)\))?\s*$/.exec(block[first].trim());
    if (!m) continue;
    const headers: Record<string, string> = {};
    let k = first + 1;
    for (; k < block.length && block[k].trim() !== ''; k++) {
      const c = block[k].indexOf(':');
      if (c > 0) headers[block[k].slice(0, c).trim().toLowerCase()] = block[k].slice(c + 1).trim();
    }
    const body = block
      .slice(k + 1)
      .join('\n')
      .trim();
    const marked = m[4] !== undefined || /error/i.test(heading);
    out.push({
      where: `${file}:${start + first + 1}`,
      method: m[1],
      url: m[2],
      headers,
      ...(body ? { body } : {}),
      status,
      error: marked || (status !== undefined && status >= 400),
      ...(m[4] ? { note: m[4] } : {}),
    });
  }
  return out;
}

/** The example of a docs/api JSON file `{ request: { method, url, headers, body }, response: { status } }`. */
export function exampleOfJson(file: string, text: string): DocExample {
  const doc = JSON.parse(text) as {
    request: { method: string; url: string; headers?: Record<string, string>; body?: unknown };
    response?: { status?: number };
  };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc.request.headers ?? {})) headers[k.toLowerCase()] = v;
  const body = doc.request.body === undefined ? undefined : JSON.stringify(doc.request.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const status = doc.response?.status;
  return {
    where: file,
    method: doc.request.method,
    url: doc.request.url,
    headers,
    ...(body !== undefined ? { body } : {}),
    status,
    error: status !== undefined && status >= 400,
  };
}

/** Every example request of the README and docs/, in file order. */
export function docExamples(root: string): DocExample[] {
  return docFiles(root).flatMap((f) => {
    const text = readFileSync(f, 'utf8');
    const rel = f.slice(root.length + 1);
    return f.endsWith('.json') ? [exampleOfJson(rel, text)] : examplesOfMarkdown(rel, text);
  });
}
