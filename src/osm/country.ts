/**
 * Rough country lookup by bounding box (enough to choose speed-limit defaults and units) and
 * default speed limits per country and road class when a way carries no `maxspeed`.
 */

/** [code, minLat, minLon, maxLat, maxLon]; small countries first so they win over neighbours. */
const COUNTRY_BOXES: ReadonlyArray<readonly [string, number, number, number, number]> = [
  ['MC', 43.7247, 7.409, 43.7519, 7.4399],
  ['AD', 42.4288, 1.4135, 42.6559, 1.7865],
  ['LI', 47.0484, 9.4716, 47.2705, 9.6357],
  ['LU', 49.4476, 5.7357, 50.1827, 6.5309],
  ['CH', 45.8179, 5.9559, 47.8085, 10.4923],
  ['NL', 50.7504, 3.358, 53.556, 7.2275],
  ['BE', 49.497, 2.545, 51.5051, 6.4081],
  ['AT', 46.3723, 9.5308, 49.0205, 17.1607],
  ['GB', 49.86, -8.65, 60.86, 1.77],
  ['IE', 51.42, -10.68, 55.39, -5.99],
  ['PT', 36.96, -9.53, 42.16, -6.19],
  ['ES', 35.94, -9.39, 43.79, 3.34],
  ['FR', 41.33, -5.15, 51.09, 9.56],
  ['IT', 36.62, 6.62, 47.09, 18.52],
  ['DE', 47.27, 5.87, 55.06, 15.04],
  ['US', 24.4, -125.0, 49.4, -66.9],
  ['US', 51.2, -180, 71.5, -129.9],
  ['US', 18.9, -160.3, 22.3, -154.8],
  ['CA', 41.6, -141.0, 83.2, -52.6],
];

/** ISO 3166-1 alpha-2 code of the country containing (lat, lon), or '' when unknown. */
export function countryAt(lat: number, lon: number): string {
  for (const [code, a, b, c, d] of COUNTRY_BOXES) {
    if (lat >= a && lat <= c && lon >= b && lon <= d) return code;
  }
  return '';
}

/** Countries whose speed limits are posted in mph (values without a unit are still km/h per OSM). */
export const MPH_COUNTRIES: ReadonlySet<string> = new Set(['US', 'GB', 'LR', 'MM']);

const MPH = 1.609344;

/** Default limits by road class, km/h; class names as in the road graph. */
type ClassSpeeds = Record<string, number>;

const mph = (v: number): number => Math.round(v * MPH * 10) / 10;

/** US urban-leaning defaults (posted in mph): most extracts served are cities. */
const US: ClassSpeeds = {
  motorway: mph(65),
  trunk: mph(55),
  primary: mph(35),
  secondary: mph(30),
  tertiary: mph(30),
  unclassified: mph(25),
  residential: mph(25),
  living_street: mph(15),
  service: mph(15),
  motorway_link: mph(35),
  trunk_link: mph(30),
  primary_link: mph(25),
  secondary_link: mph(25),
  tertiary_link: mph(25),
};
/** Generic European defaults: rural limits on main roads, urban 50 on minor roads. */
const EU: ClassSpeeds = {
  motorway: 130,
  trunk: 110,
  primary: 80,
  secondary: 80,
  tertiary: 50,
  unclassified: 50,
  residential: 50,
  living_street: 20,
  service: 20,
  motorway_link: 80,
  trunk_link: 60,
  primary_link: 50,
  secondary_link: 50,
  tertiary_link: 40,
};
const BY_COUNTRY: Record<string, ClassSpeeds> = {
  US,
  CA: {
    ...US,
    motorway: 100,
    trunk: 90,
    primary: 60,
    secondary: 50,
    tertiary: 50,
    unclassified: 50,
    residential: 40,
    living_street: 20,
    service: 20,
  },
  GB: {
    ...EU,
    motorway: mph(70),
    trunk: mph(60),
    primary: mph(60),
    secondary: mph(30),
    tertiary: mph(30),
    unclassified: mph(30),
    residential: mph(30),
    living_street: mph(10),
    service: mph(10),
  },
  // Monaco: the whole principality is urban (50 km/h), tunnels included.
  MC: {
    ...EU,
    motorway: 50,
    trunk: 50,
    primary: 50,
    secondary: 50,
    tertiary: 50,
    unclassified: 30,
    residential: 30,
    motorway_link: 50,
    trunk_link: 50,
  },
  // Andorra: 90 km/h outside built-up areas on the CG main roads, 50 in towns.
  AD: { ...EU, motorway: 90, trunk: 90, primary: 90, secondary: 60, tertiary: 50 },
  ES: { ...EU, motorway: 120, trunk: 100, primary: 90, secondary: 90 },
  DE: { ...EU, motorway: 130, trunk: 100, primary: 100, secondary: 100, tertiary: 100 },
  FR: { ...EU, motorway: 130, trunk: 110, primary: 80, secondary: 80 },
};

/** Default speed limit (km/h) for an OSM highway value (e.g. `primary_link`) in a country. */
export function defaultSpeedKph(country: string, highway: string): number {
  const table = BY_COUNTRY[country] ?? EU;
  return table[highway] ?? table[highway.replace(/_link$/, '')] ?? table.unclassified;
}

/** Urban / rural / motorway zone defaults of the `XX:zone` maxspeed values, km/h. */
export function zoneSpeedKph(country: string, zone: string): number | undefined {
  const isMph = MPH_COUNTRIES.has(country);
  switch (zone) {
    case 'urban':
      return isMph ? mph(country === 'GB' ? 30 : 25) : 50;
    case 'rural':
      return isMph ? mph(country === 'GB' ? 60 : 55) : country === 'FR' || country === 'AD' ? 80 : 90;
    case 'motorway':
      return isMph ? mph(country === 'GB' ? 70 : 65) : 130;
    case 'trunk':
    case 'expressway':
      return isMph ? mph(55) : 110;
    case 'living_street':
      return isMph ? mph(10) : 20;
    case 'school':
      return isMph ? mph(20) : 30;
    case 'zone30':
    case 'zone:30':
      return 30;
    case 'zone20':
    case 'zone:20':
      return 20;
    case 'bicycle_road':
      return 30;
    default:
      return undefined;
  }
}
