/**
 * A tiny builder of OSM data for tests: nodes on a local grid, tagged ways and relations, written
 * as OSM XML (`xml()`) or as an OSM PBF file (`pbf()`: dense nodes, zlib blobs, one block each
 * for nodes, ways and relations). `gridNode(row, col)` places nodes `stepDeg` apart around an
 * origin so fixtures read like a map.
 */
import { deflateSync } from 'node:zlib';
import { PbfWriter } from 'pbf';

type TagMap = Record<string, string>;
type MemberType = 'node' | 'way' | 'relation';

interface FixtureNode {
  id: number;
  lat: number;
  lon: number;
  tags: TagMap;
}
interface FixtureWay {
  id: number;
  refs: number[];
  tags: TagMap;
}
interface FixtureRelation {
  id: number;
  members: Array<[MemberType, number, string]>;
  tags: TagMap;
}

/** Builder of an OSM document. */
export class OsmFixture {
  private readonly nodes: FixtureNode[] = [];
  private readonly ways: FixtureWay[] = [];
  private readonly relations: FixtureRelation[] = [];
  private bounds: [number, number, number, number] | null = null;

  constructor(
    private readonly originLat = 39.29,
    private readonly originLon = -76.6,
    private readonly stepDeg = 0.002,
  ) {}

  /** Declares the bounds (minLat, minLon, maxLat, maxLon). */
  withBounds(b: [number, number, number, number]): this {
    this.bounds = b;
    return this;
  }

  /** A node at absolute coordinates. */
  node(id: number, lat: number, lon: number, tags: TagMap = {}): this {
    this.nodes.push({ id, lat, lon, tags });
    return this;
  }

  /** A node at grid position (row north, col east) from the origin. */
  gridNode(id: number, row: number, col: number, tags: TagMap = {}): this {
    return this.node(
      id,
      round7(this.originLat + row * this.stepDeg),
      round7(this.originLon + col * this.stepDeg),
      tags,
    );
  }

  /** A way through `refs`. */
  way(id: number, refs: number[], tags: TagMap = {}): this {
    this.ways.push({ id, refs, tags });
    return this;
  }

  /** A relation; members as [type, ref, role]. */
  relation(id: number, members: Array<[MemberType, number, string]>, tags: TagMap = {}): this {
    this.relations.push({ id, members, tags });
    return this;
  }

  /** The OSM XML text (nodes, ways, relations). */
  xml(): string {
    const b = this.bounds
      ? `<bounds minlat="${this.bounds[0]}" minlon="${this.bounds[1]}" maxlat="${this.bounds[2]}" maxlon="${this.bounds[3]}"/>`
      : '';
    const lines = [
      ...this.nodes.map((n) => `<node id="${n.id}" lat="${n.lat}" lon="${n.lon}" version="1">${tagXml(n.tags)}</node>`),
      ...this.ways.map(
        (w) => `<way id="${w.id}" version="1">${w.refs.map((r) => `<nd ref="${r}"/>`).join('')}${tagXml(w.tags)}</way>`,
      ),
      ...this.relations.map(
        (r) =>
          `<relation id="${r.id}" version="1">${r.members.map(([t, ref, role]) => `<member type="${t}" ref="${ref}" role="${esc(role)}"/>`).join('')}${tagXml(r.tags)}</relation>`,
      ),
    ];
    return `<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="test">${b}\n${lines.join('\n')}\n</osm>\n`;
  }

  /** The same data as an OSM PBF file (nodes sorted by id, as tools write them). */
  pbf(): Buffer {
    const header = new PbfWriter();
    if (this.bounds) {
      const [minLat, minLon, maxLat, maxLon] = this.bounds;
      header.writeMessage(
        1,
        (_: null, p: PbfWriter) => {
          p.writeTag(1, 0);
          p.writeSVarint(Math.round(minLon * 1e9));
          p.writeTag(2, 0);
          p.writeSVarint(Math.round(maxLon * 1e9));
          p.writeTag(3, 0);
          p.writeSVarint(Math.round(maxLat * 1e9));
          p.writeTag(4, 0);
          p.writeSVarint(Math.round(minLat * 1e9));
        },
        null,
      );
    }
    header.writeTag(4, 2);
    header.writeString('OsmSchema-V0.6');
    header.writeTag(4, 2);
    header.writeString('DenseNodes');
    header.writeTag(16, 2);
    header.writeString('streetwise tests');
    const blobs = [blob('OSMHeader', header.finish())];

    const strings = new StringTable();
    const nodes = this.nodes.slice().sort((a, b) => a.id - b.id);
    const ids: number[] = [],
      lats: number[] = [],
      lons: number[] = [],
      kv: number[] = [];
    let pid = 0,
      plat = 0,
      plon = 0;
    for (const n of nodes) {
      const lat = Math.round(n.lat * 1e7),
        lon = Math.round(n.lon * 1e7);
      ids.push(n.id - pid);
      lats.push(lat - plat);
      lons.push(lon - plon);
      pid = n.id;
      plat = lat;
      plon = lon;
      for (const [k, v] of Object.entries(n.tags)) kv.push(strings.id(k), strings.id(v));
      kv.push(0);
    }
    const wayMsgs = this.ways.map((w) => {
      const deltas = w.refs.map((r, i) => r - (i > 0 ? w.refs[i - 1] : 0));
      return {
        id: w.id,
        keys: Object.keys(w.tags).map((k) => strings.id(k)),
        vals: Object.values(w.tags).map((v) => strings.id(v)),
        deltas,
      };
    });
    const relMsgs = this.relations.map((r) => ({
      id: r.id,
      keys: Object.keys(r.tags).map((k) => strings.id(k)),
      vals: Object.values(r.tags).map((v) => strings.id(v)),
      roles: r.members.map(([, , role]) => strings.id(role)),
      memids: r.members.map(([, ref], i) => ref - (i > 0 ? r.members[i - 1][1] : 0)),
      types: r.members.map(([t]) => (t === 'node' ? 0 : t === 'way' ? 1 : 2)),
    }));
    const block = new PbfWriter();
    block.writeMessage(
      1,
      (_: null, p: PbfWriter) => {
        for (const s of strings.list) {
          p.writeTag(1, 2);
          p.writeBytes(Buffer.from(s, 'utf8'));
        }
      },
      null,
    );
    block.writeMessage(
      2,
      (_: null, g: PbfWriter) => {
        g.writeMessage(
          2,
          (__: null, d: PbfWriter) => {
            d.writePackedSVarint(1, ids);
            d.writePackedSVarint(8, lats);
            d.writePackedSVarint(9, lons);
            if (kv.some((x) => x !== 0)) d.writePackedVarint(10, kv);
          },
          null,
        );
      },
      null,
    );
    if (wayMsgs.length) {
      block.writeMessage(
        2,
        (_: null, g: PbfWriter) => {
          for (const w of wayMsgs) {
            g.writeMessage(
              3,
              (__: null, m: PbfWriter) => {
                m.writeTag(1, 0);
                m.writeVarint(w.id);
                m.writePackedVarint(2, w.keys);
                m.writePackedVarint(3, w.vals);
                m.writePackedSVarint(8, w.deltas);
              },
              null,
            );
          }
        },
        null,
      );
    }
    if (relMsgs.length) {
      block.writeMessage(
        2,
        (_: null, g: PbfWriter) => {
          for (const r of relMsgs) {
            g.writeMessage(
              4,
              (__: null, m: PbfWriter) => {
                m.writeTag(1, 0);
                m.writeVarint(r.id);
                m.writePackedVarint(2, r.keys);
                m.writePackedVarint(3, r.vals);
                m.writePackedVarint(8, r.roles);
                m.writePackedSVarint(9, r.memids);
                m.writePackedVarint(10, r.types);
              },
              null,
            );
          }
        },
        null,
      );
    }
    blobs.push(blob('OSMData', block.finish()));
    return Buffer.concat(blobs);
  }
}

class StringTable {
  readonly list: string[] = [''];
  private readonly index = new Map<string, number>([['', 0]]);
  id(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

function blob(type: string, data: Uint8Array): Buffer {
  const body = new PbfWriter();
  body.writeTag(2, 0);
  body.writeVarint(data.length);
  body.writeTag(3, 2);
  body.writeBytes(deflateSync(data));
  const bodyBytes = body.finish();
  const head = new PbfWriter();
  head.writeTag(1, 2);
  head.writeString(type);
  head.writeTag(3, 0);
  head.writeVarint(bodyBytes.length);
  const headBytes = head.finish();
  const len = Buffer.alloc(4);
  len.writeUInt32BE(headBytes.length, 0);
  return Buffer.concat([len, headBytes, bodyBytes]);
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function tagXml(tags: TagMap): string {
  return Object.entries(tags)
    .map(([k, v]) => `<tag k="${esc(k)}" v="${esc(v)}"/>`)
    .join('');
}

function round7(x: number): number {
  return Math.round(x * 1e7) / 1e7;
}
