/**
 * The basemap style: streetwise's own vector tiles (`/tiles/{z}/{x}/{y}.pbf`) drawn by road class,
 * with street names in Noto Sans served by streetwise itself (MapLibre renders the glyphs in the
 * browser from the font files, so no glyph server is needed).
 */
import type { StyleSpecification, ExpressionSpecification } from 'maplibre-gl';

const LATIN = [
  'U+0000-00FF',
  'U+0131',
  'U+0152-0153',
  'U+02BB-02BC',
  'U+02C6',
  'U+02DA',
  'U+02DC',
  'U+0304',
  'U+0308',
  'U+0329',
  'U+2000-206F',
  'U+20AC',
  'U+2122',
  'U+2191',
  'U+2193',
  'U+2212',
  'U+2215',
  'U+FEFF',
  'U+FFFD',
];
const LATIN_EXT = [
  'U+0100-02BA',
  'U+02BD-02C5',
  'U+02C7-02CC',
  'U+02CE-02D7',
  'U+02DD-02FF',
  'U+1D00-1DBF',
  'U+1E00-1E9F',
  'U+1EF2-1EFF',
  'U+2020',
  'U+20A0-20AB',
  'U+20AD-20C0',
  'U+2113',
  'U+2C60-2C7F',
  'U+A720-A7FF',
];

/** Font stacks of the style (names of its `font-faces`). */
export const FONT_REGULAR = 'Noto Sans Regular';
export const FONT_BOLD = 'Noto Sans Bold';

const CLASS_WIDTH: ExpressionSpecification = [
  'match',
  ['get', 'class'],
  'motorway',
  9,
  'trunk',
  8,
  'primary',
  7.5,
  'secondary',
  7,
  'tertiary',
  6.5,
  'service',
  3,
  'living_street',
  4,
  5,
];
/** Road width by zoom: the class width (px at z16) times `factor`. */
function roadWidth(factor: number): ExpressionSpecification {
  return [
    'interpolate',
    ['exponential', 1.6],
    ['zoom'],
    10,
    ['*', 0.15 * factor, CLASS_WIDTH],
    13,
    ['*', 0.45 * factor, CLASS_WIDTH],
    16,
    ['*', factor, CLASS_WIDTH],
    19,
    ['*', 3.2 * factor, CLASS_WIDTH],
  ];
}

const CLASS_COLOR: ExpressionSpecification = [
  'match',
  ['get', 'class'],
  'motorway',
  '#f6b26b',
  'trunk',
  '#f9cb9c',
  'primary',
  '#fde29a',
  'secondary',
  '#fef3c0',
  '#ffffff',
];

/** The style for a server at `origin` (e.g. `http://localhost:8080`). */
export function basemapStyle(origin: string, attribution: string): StyleSpecification {
  const font = (subset: string, weight: string) => `${origin}/console/fonts/noto-sans-${subset}-${weight}-normal.woff2`;
  const faces = (weight: string) => [
    { url: font('latin', weight), 'unicode-range': LATIN },
    { url: font('latin-ext', weight), 'unicode-range': LATIN_EXT },
  ];
  return {
    version: 8,
    'font-faces': { [FONT_REGULAR]: faces('400'), [FONT_BOLD]: faces('700') },
    sources: {
      streetwise: { type: 'vector', tiles: [`${origin}/tiles/{z}/{x}/{y}.pbf`], minzoom: 0, maxzoom: 14, attribution },
    },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': '#eef0ec' } },
      { id: 'water', type: 'fill', source: 'streetwise', 'source-layer': 'water', paint: { 'fill-color': '#a9cbe8' } },
      {
        id: 'waterways',
        type: 'line',
        source: 'streetwise',
        'source-layer': 'waterways',
        paint: { 'line-color': '#a9cbe8', 'line-width': ['match', ['get', 'kind'], 'river', 4, 'canal', 3, 1.5] },
      },
      {
        id: 'lots',
        type: 'fill',
        source: 'streetwise',
        'source-layer': 'lots',
        paint: { 'fill-color': '#d6dbe6', 'fill-outline-color': '#8a94a8' },
      },
      {
        id: 'ferries',
        type: 'line',
        source: 'streetwise',
        'source-layer': 'ferries',
        paint: { 'line-color': '#4a7fc1', 'line-width': 2, 'line-dasharray': [3, 2] },
      },
      {
        id: 'road-casing',
        type: 'line',
        source: 'streetwise',
        'source-layer': 'roads',
        layout: { 'line-join': 'round', 'line-cap': 'round' },
        paint: {
          'line-color': ['case', ['==', ['get', 'structure'], 'bridge'], '#6b6b6b', '#b9b4a8'],
          'line-width': roadWidth(1.3),
        },
      },
      {
        id: 'roads',
        type: 'line',
        source: 'streetwise',
        'source-layer': 'roads',
        layout: { 'line-join': 'round', 'line-cap': 'round' },
        paint: { 'line-color': CLASS_COLOR, 'line-width': roadWidth(1) },
      },
      {
        id: 'water-labels',
        type: 'symbol',
        source: 'streetwise',
        'source-layer': 'water',
        minzoom: 12,
        layout: {
          'text-field': ['get', 'name'],
          'text-font': [FONT_REGULAR],
          'text-size': 12,
          'text-letter-spacing': 0.1,
        },
        paint: { 'text-color': '#2f5f9c', 'text-halo-color': '#a9cbe8', 'text-halo-width': 1 },
      },
      {
        id: 'ferry-labels',
        type: 'symbol',
        source: 'streetwise',
        'source-layer': 'ferries',
        minzoom: 13,
        layout: {
          'symbol-placement': 'line',
          'text-field': ['get', 'name'],
          'text-font': [FONT_REGULAR],
          'text-size': 11,
        },
        paint: { 'text-color': '#2f5f9c', 'text-halo-color': '#eef0ec', 'text-halo-width': 1.5 },
      },
      {
        id: 'road-labels',
        type: 'symbol',
        source: 'streetwise',
        'source-layer': 'roads',
        minzoom: 13,
        layout: {
          'symbol-placement': 'line',
          'text-field': ['coalesce', ['get', 'name'], ['get', 'ref']],
          'text-font': [FONT_REGULAR],
          'text-size': ['interpolate', ['linear'], ['zoom'], 13, 10, 17, 13],
          'text-max-angle': 35,
          'symbol-spacing': 300,
        },
        paint: { 'text-color': '#3b3b3b', 'text-halo-color': '#ffffff', 'text-halo-width': 1.5 },
      },
      {
        id: 'lot-labels',
        type: 'symbol',
        source: 'streetwise',
        'source-layer': 'lot_labels',
        minzoom: 15,
        layout: {
          'text-field': ['concat', 'P ', ['get', 'name']],
          'text-font': [FONT_BOLD],
          'text-size': 11,
          'text-optional': true,
        },
        paint: { 'text-color': '#3a4a6b', 'text-halo-color': '#ffffff', 'text-halo-width': 1.2 },
      },
    ],
  } as StyleSpecification;
}

/** Colours of the routing API's speed buckets (0 < 25 % of free flow … 3 ≥ 75 %). */
export const SPEED_BUCKET_COLORS = ['#7a0019', '#e0301e', '#f5a623', '#2ea043'];
/** Labels of the speed buckets. */
export const SPEED_BUCKET_LABELS = ['< 25 % of free flow', '25–50 %', '50–75 %', '≥ 75 %'];
/** Colours of levels of service A–F. */
export const LOS_COLORS: Record<string, string> = {
  A: '#1a9850',
  B: '#91cf60',
  C: '#c8e67a',
  D: '#fee08b',
  E: '#fc8d59',
  F: '#d73027',
};
/** Colours of parking probability buckets (1 < 35 %, 2 35–70 %, 3 ≥ 70 %). */
export const PARKING_BUCKET_COLORS: Record<number, string> = { 1: '#d73027', 2: '#f5b800', 3: '#1a9850' };

/** A MapLibre `match` expression from a property to colours. */
export function colorMatch(
  prop: string,
  colors: Record<string | number, string>,
  fallback: string,
): ExpressionSpecification {
  const pairs: Array<string | number> = [];
  for (const [k, v] of Object.entries(colors)) pairs.push(/^\d+$/.test(k) ? Number(k) : k, v);
  return ['match', ['get', prop], ...pairs, fallback] as unknown as ExpressionSpecification;
}
