/**
 * Streaming reader of OSM XML (`.osm`, API 0.6 format) with `saxes`. Reads a file in chunks or a
 * string; emits the same entities as the PBF reader.
 */
import { openSync, readSync, closeSync, fstatSync } from 'node:fs';
import { SaxesParser } from 'saxes';
import type { OsmHandler, OsmMember, ReadProgress, Tags } from './types.js';
import { NO_TAGS } from './types.js';

const CHUNK_BYTES = 1 << 20;

type Attrs = Record<string, string>;

function makeParser(handler: OsmHandler): SaxesParser {
  const parser = new SaxesParser();
  let kind: 'node' | 'way' | 'relation' | null = null;
  let id = 0,
    lat = 0,
    lon = 0;
  let tags: Tags = NO_TAGS;
  let refs: number[] = [];
  let members: OsmMember[] = [];
  parser.on('opentag', (tag) => {
    const a = tag.attributes as Attrs;
    switch (tag.name) {
      case 'node':
        kind = 'node';
        id = Number(a.id);
        lat = Number(a.lat);
        lon = Number(a.lon);
        tags = NO_TAGS;
        break;
      case 'way':
        kind = 'way';
        id = Number(a.id);
        refs = [];
        tags = NO_TAGS;
        break;
      case 'relation':
        kind = 'relation';
        id = Number(a.id);
        members = [];
        tags = NO_TAGS;
        break;
      case 'tag':
        if (kind) {
          if (tags === NO_TAGS) tags = {};
          tags[a.k] = a.v;
        }
        break;
      case 'nd':
        if (kind === 'way') refs.push(Number(a.ref));
        break;
      case 'member':
        if (kind === 'relation') {
          const t = a.type === 'way' || a.type === 'relation' ? a.type : 'node';
          members.push({ type: t, ref: Number(a.ref), role: a.role ?? '' });
        }
        break;
      case 'bounds':
        handler.header?.({
          bounds: [Number(a.minlat), Number(a.minlon), Number(a.maxlat), Number(a.maxlon)],
          timestampS: null,
          writingProgram: '',
        });
        break;
      default:
        break;
    }
  });
  parser.on('closetag', (tag) => {
    if (tag.name === 'node' && kind === 'node') handler.node({ id, lat, lon, tags });
    else if (tag.name === 'way' && kind === 'way') handler.way({ id, refs, tags });
    else if (tag.name === 'relation' && kind === 'relation') handler.relation({ id, members, tags });
    else return;
    kind = null;
  });
  return parser;
}

/** Parses OSM XML text and feeds every entity to `handler`. Throws on malformed XML. */
export function readOsmXmlString(xml: string, handler: OsmHandler): void {
  const parser = makeParser(handler);
  parser.write(xml);
  parser.close();
}

/** Reads an OSM XML file in 1 MiB chunks and feeds every entity to `handler`. */
export function readOsmXmlFile(path: string, handler: OsmHandler, onProgress?: ReadProgress): void {
  const parser = makeParser(handler);
  const fd = openSync(path, 'r');
  try {
    const total = fstatSync(fd).size;
    const buf = Buffer.alloc(CHUNK_BYTES);
    const decoder = new TextDecoder('utf-8');
    let pos = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK_BYTES, pos);
      if (n === 0) break;
      pos += n;
      parser.write(decoder.decode(buf.subarray(0, n), { stream: true }));
      onProgress?.(pos, total);
    }
    const rest = decoder.decode();
    if (rest) parser.write(rest);
    parser.close();
  } finally {
    closeSync(fd);
  }
}
