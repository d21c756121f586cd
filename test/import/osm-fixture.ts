/**
 * A tiny builder of OSM XML for tests: nodes on a local grid, tagged ways and relations.
 * `grid(row, col)` places nodes `stepDeg` apart around an origin so fixtures read like a map.
 */
type TagMap = Record<string, string>;

/** Builder of an OSM XML document. */
export class OsmFixture {
  private readonly parts: string[] = [];
  private bounds: [number, number, number, number] | null = null;

  constructor(private readonly originLat = 39.29, private readonly originLon = -76.6, private readonly stepDeg = 0.002) {}

  /** Declares `<bounds>` (minLat, minLon, maxLat, maxLon). */
  withBounds(b: [number, number, number, number]): this {
    this.bounds = b;
    return this;
  }

  /** A node at absolute coordinates. */
  node(id: number, lat: number, lon: number, tags: TagMap = {}): this {
    this.parts.push(`<node id="${id}" lat="${lat}" lon="${lon}" version="1">${tagXml(tags)}</node>`);
    return this;
  }

  /** A node at grid position (row north, col east) from the origin. */
  gridNode(id: number, row: number, col: number, tags: TagMap = {}): this {
    return this.node(id, round7(this.originLat + row * this.stepDeg), round7(this.originLon + col * this.stepDeg), tags);
  }

  /** A way through `refs`. */
  way(id: number, refs: number[], tags: TagMap = {}): this {
    this.parts.push(`<way id="${id}" version="1">${refs.map((r) => `<nd ref="${r}"/>`).join('')}${tagXml(tags)}</way>`);
    return this;
  }

  /** A relation; members as [type, ref, role]. */
  relation(id: number, members: Array<['node' | 'way' | 'relation', number, string]>, tags: TagMap = {}): this {
    const m = members.map(([t, r, role]) => `<member type="${t}" ref="${r}" role="${role}"/>`).join('');
    this.parts.push(`<relation id="${id}" version="1">${m}${tagXml(tags)}</relation>`);
    return this;
  }

  /** The OSM XML text (nodes, ways, relations in insertion order). */
  xml(): string {
    const b = this.bounds ? `<bounds minlat="${this.bounds[0]}" minlon="${this.bounds[1]}" maxlat="${this.bounds[2]}" maxlon="${this.bounds[3]}"/>` : '';
    return `<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="test">${b}\n${this.parts.join('\n')}\n</osm>\n`;
  }
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function tagXml(tags: TagMap): string {
  return Object.entries(tags).map(([k, v]) => `<tag k="${esc(k)}" v="${esc(v)}"/>`).join('');
}

function round7(x: number): number {
  return Math.round(x * 1e7) / 1e7;
}
