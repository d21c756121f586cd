/**
 * Where a writer of OSM data sends its entities: nodes, then ways, then relations, each by
 * ascending id. `PbfFileWriter` and `XmlFileWriter` implement it; `openOsmFile` picks one by the
 * file name.
 */
import type { OsmHeader, OsmMember, Tags } from './types.js';
import { PbfFileWriter } from './pbf-writer.js';
import { XmlFileWriter } from './xml-writer.js';

/** Receives OSM entities in file order and writes them out. */
export interface OsmSink {
  /** a node at (lat, lon) degrees */
  node(id: number, lat: number, lon: number, tags: Tags): void;
  /** a way over node ids */
  way(id: number, refs: ArrayLike<number>, tags: Tags): void;
  /** a relation */
  relation(id: number, members: readonly OsmMember[], tags: Tags): void;
  /** flushes what is buffered and closes the file */
  close(): void;
}

/** Opens an OSM file for writing: PBF for `*.pbf`, OSM XML for `*.osm`; anything else is refused. */
export function openOsmFile(path: string, header: OsmHeader): OsmSink {
  if (path.endsWith('.pbf')) return new PbfFileWriter(path, header);
  if (path.endsWith('.osm')) return new XmlFileWriter(path, header);
  throw new Error(`${path}: the file name must end in .osm.pbf (OSM PBF) or .osm (OSM XML)`);
}
