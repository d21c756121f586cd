/**
 * Streaming JSON probe reader: a body `{"pings": [ping, …]}` (other keys are skipped) or a
 * top-level array of pings, each ping an object as in `json-record.ts`. The text is tokenised
 * chunk by chunk (stream-json's tokenizer) and only one ping at a time is assembled, so a body of
 * a million pings needs no more memory than one. A body of the wrong shape is a
 * `ProbeFormatError` before any record is yielded; a malformed ping is a `ParseIssue` with its
 * array index; a syntax error after the first ping ends the body with an issue (what came before
 * it stays read, as with a broken FCD file).
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { Assembler } from 'stream-json/core/assembler.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { ProbeFormatError } from './errors.js';
import { recordFromObject } from './json-record.js';
import type { ParseIssue, ProbeRecord } from './records.js';

/** stream-json's tokenizer: text in, a batch of tokens (`{ values }`) or nothing out; the `none` symbol flushes. */
type Tokenizer = (chunk: string | symbol) => { values: Token[] } | symbol;
/** stream-chain's "no value / end of input" marker (a registered symbol, shared by every copy of the library). */
const END_OF_INPUT = Symbol.for('object-stream.none');

const SHAPE_HINT = 'a JSON body must be an object with a "pings" array or an array of pings';

/**
 * Where the tokens are relative to the pings array: before the first token, inside the top-level
 * object outside `pings`, right after the `pings` key (its value must be an array), inside the
 * pings array, after a bare top-level array ended.
 */
type At = 'start' | 'envelope' | 'pingsKey' | 'pings' | 'done';

/** Turns tokens into records: skips the envelope, assembles one ping at a time. Not reentrant. */
class PingExtractor {
  private at: At = 'start';
  /** nesting depth of containers opened in the envelope (to skip values of other keys) */
  private skipDepth = 0;
  private sawPings = false;
  /** the body is a bare array of pings */
  private bare = false;
  private asm = new Assembler();
  /** array index of the next ping */
  index = 0;
  readonly out: ProbeRecord[] = [];

  constructor(private readonly onIssue: (issue: ParseIssue) => void) {}

  consume(tokens: readonly Token[]): void {
    for (const t of tokens) {
      switch (this.at) {
        case 'start':
          if (t.name === 'startArray') {
            this.at = 'pings';
            this.sawPings = true;
            this.bare = true;
          } else if (t.name === 'startObject') this.at = 'envelope';
          else throw new ProbeFormatError('PROBES_JSON_SHAPE', `${SHAPE_HINT}; it starts with a ${tokenKind(t)}`);
          break;
        case 'envelope':
          this.envelope(t);
          break;
        case 'pingsKey':
          if (t.name !== 'startArray')
            throw new ProbeFormatError('PROBES_JSON_SHAPE', `"pings" must be an array, got a ${tokenKind(t)}`);
          this.at = 'pings';
          this.sawPings = true;
          break;
        case 'pings':
          this.ping(t);
          break;
        case 'done':
          break;
      }
    }
  }

  /** Outside the pings array: skip every value except the `pings` key's. */
  private envelope(t: Token): void {
    if (t.name === 'startObject' || t.name === 'startArray') this.skipDepth++;
    else if (t.name === 'endObject' || t.name === 'endArray') this.skipDepth--;
    // A repeated "pings" key is skipped like any other: the first one is the batch.
    else if (t.name === 'keyValue' && this.skipDepth === 0 && t.value === 'pings' && !this.sawPings)
      this.at = 'pingsKey';
  }

  private ping(t: Token): void {
    if (t.name === 'endArray' && this.asm.done) {
      this.at = this.bare ? 'done' : 'envelope';
      return;
    }
    this.asm.consume(t);
    if (!this.asm.done) return;
    const rec = recordFromObject(this.asm.current);
    if (typeof rec === 'string') this.onIssue({ index: this.index, message: rec });
    else this.out.push(rec);
    this.index++;
  }

  /** True before the first token. */
  get empty(): boolean {
    return this.at === 'start';
  }

  /** Checks the body had pings once the input ended. */
  finish(): void {
    if (this.at === 'start') throw new ProbeFormatError('PROBES_JSON_SHAPE', `${SHAPE_HINT}; the body is empty`);
    if (!this.sawPings) throw new ProbeFormatError('PROBES_JSON_SHAPE', `${SHAPE_HINT}; the object has no "pings" key`);
  }
}

function tokenKind(t: Token): string {
  switch (t.name) {
    case 'stringValue':
      return 'string';
    case 'numberValue':
      return 'number';
    case 'nullValue':
      return 'null';
    case 'trueValue':
    case 'falseValue':
      return 'boolean';
    case 'startObject':
      return 'object';
    default:
      return t.name;
  }
}

/** Reads pings from a JSON body; malformed pings go to `onIssue` with their array index. */
export async function* readJsonProbes(
  input: Readable,
  onIssue: (issue: ParseIssue) => void,
): AsyncGenerator<ProbeRecord> {
  const tokenize = jsonParser({ streamValues: false }) as unknown as Tokenizer;
  const decoder = new StringDecoder('utf8');
  const ex = new PingExtractor(onIssue);
  let yielded = false;
  const feed = (text: string | symbol): boolean => {
    let r: ReturnType<Tokenizer>;
    try {
      r = tokenize(text);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      if (text === END_OF_INPUT && ex.empty) ex.finish();
      if (!yielded && ex.index === 0) throw new ProbeFormatError('PROBES_JSON_SYNTAX', `not valid JSON: ${why}`);
      onIssue({
        index: ex.index,
        message: `JSON syntax error after ping ${ex.index - 1}, rest of the body skipped: ${why}`,
      });
      return false;
    }
    if (typeof r === 'symbol') return true;
    ex.consume(r.values);
    return true;
  };
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    if (!feed(text)) return;
    if (ex.out.length > 0) {
      yielded = true;
      yield* ex.out.splice(0);
    }
  }
  const rest = decoder.end();
  const ok = (rest === '' || feed(rest)) && feed(END_OF_INPUT);
  yield* ex.out.splice(0);
  if (ok) ex.finish();
}
