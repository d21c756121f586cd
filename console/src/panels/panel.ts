/** What every panel gets from the page, and what the page asks of a panel. */
import type { Map as MlMap, MapMouseEvent } from 'maplibre-gl';
import type { ApiClient } from '../api.js';
import type { RegionTime } from '../time.js';

/** The page's shared objects. */
export interface PanelContext {
  map: MlMap;
  api: ApiClient;
  time: RegionTime;
  region: { name: string; country: string; bounds: [number, number, number, number] };
  /** shows an error or note above the panels (null clears it) */
  notice: (message: string | null) => void;
}

/** A tab of the sidebar. */
export interface Panel {
  /** renders into its section the first time, shows its map layers, loads its data */
  activate(): void;
  /** hides its map layers and stops polling */
  deactivate(): void;
  /** a click on the map while the panel is active (not on a marker) */
  onMapClick?(e: MapMouseEvent): void;
}

/** Writes an API error into a panel's status line. */
export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
