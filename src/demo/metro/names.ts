/**
 * Street names of the metro: a seeded pick of a first word (trees, people, places) and a suffix
 * fitting the street's role, and ordinal names for the downtown avenues.
 */
import type { Prng } from '../prng.js';

const WORDS = [
  'Oak',
  'Maple',
  'Cedar',
  'Pine',
  'Elm',
  'Birch',
  'Walnut',
  'Chestnut',
  'Hickory',
  'Willow',
  'Aspen',
  'Spruce',
  'Poplar',
  'Laurel',
  'Magnolia',
  'Holly',
  'Juniper',
  'Sycamore',
  'Alder',
  'Linden',
  'Adams',
  'Baker',
  'Carter',
  'Dawson',
  'Ellis',
  'Foster',
  'Grant',
  'Harper',
  'Irving',
  'Jordan',
  'Keller',
  'Lincoln',
  'Madison',
  'Nolan',
  'Owens',
  'Parker',
  'Quincy',
  'Reed',
  'Spencer',
  'Tucker',
  'Underwood',
  'Vance',
  'Warren',
  'Young',
  'Bishop',
  'Calhoun',
  'Franklin',
  'Hamilton',
  'Jefferson',
  'Monroe',
  'Ridge',
  'Valley',
  'Meadow',
  'Brook',
  'Forest',
  'Hill',
  'Lake',
  'Spring',
  'Sunset',
  'Highland',
  'Orchard',
  'Mill',
  'Church',
  'School',
  'Market',
  'Harbor',
  'Bridge',
  'Station',
  'Garden',
  'Park',
  'Fairview',
  'Greenwood',
  'Riverside',
  'Westfield',
  'Northgate',
  'Eastwood',
  'Southfield',
  'Kingston',
  'Ashford',
  'Bellmont',
  'Clifton',
  'Dover',
  'Easton',
  'Fulton',
  'Glenwood',
  'Hanover',
  'Ivy',
  'Jasper',
  'Kent',
  'Lexington',
];

const LOCAL_SUFFIXES = ['St', 'Ln', 'Dr', 'Way', 'Pl', 'Ter'];
const CUL_DE_SAC_SUFFIXES = ['Ct', 'Cir', 'Pl', 'Cv'];
const COLLECTOR_SUFFIXES = ['Rd', 'Pkwy', 'Dr'];
const ARTERIAL_SUFFIXES = ['Ave', 'Blvd', 'Pike', 'Rd'];

/** Role of a street, which decides its suffix. */
export type StreetRole = 'local' | 'cul-de-sac' | 'collector' | 'arterial' | 'country';

/** A street name for `role`, e.g. "Maple Ct" for a cul-de-sac. */
export function streetName(rng: Prng, role: StreetRole): string {
  const word = rng.pick(WORDS);
  switch (role) {
    case 'cul-de-sac':
      return `${word} ${rng.pick(CUL_DE_SAC_SUFFIXES)}`;
    case 'collector':
      return `${word} ${rng.pick(COLLECTOR_SUFFIXES)}`;
    case 'arterial':
      return `${word} ${rng.pick(ARTERIAL_SUFFIXES)}`;
    case 'country':
      return `${word} ${rng.pick(['Rd', 'Pike', 'Lane'])}`;
    default:
      return `${word} ${rng.pick(LOCAL_SUFFIXES)}`;
  }
}

/** "1st St", "2nd St", "23rd St": the numbered streets of downtown. */
export function ordinalStreet(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix} St`;
}
