/** The plans of the demo city's parking lots (positions in plan metres, see layout.ts). */
import type { DemoLot, OpeningRule } from './parking-lots.js';

/** The plan of one demo lot: fixed facts and the ranges its random values are drawn from. */
export interface LotPlan {
  key: string;
  name: string;
  operator: string;
  parking: DemoLot['parking'];
  access: DemoLot['access'];
  fee: boolean;
  parkRide?: boolean;
  category: string;
  capacity: [number, number];
  hours: OpeningRule[];
  payments: string[];
  /** hourly weekday price range; 0 = free lot */
  hourlyUsd: [number, number];
  eveningRate?: boolean;
  holiday?: boolean;
  charging?: boolean;
  /** area ring in local metres (open; closed on output), or a single point for node lots */
  ring?: Array<[number, number]>;
  point?: [number, number];
  entrances: Array<[number, number, DemoLot['entrances'][number]['type']]>;
  houseNumber: string;
  street: string;
  maxHeightM?: number;
}

const ALL_DAY: OpeningRule[] = [{ dowStart: 1, dowEnd: 7, open: '00:00', close: '24:00' }];
const CARDS = ['cash', 'credit_cards', 'debit_cards', 'visa', 'mastercard', 'american_express', 'app'];

/** The lots, in output order: seven areas then two nodes (x metres east, y metres north). */
export const LOT_PLANS: readonly LotPlan[] = [
  {
    key: 'harborplace-garage',
    name: 'Harborplace Garage',
    operator: 'Calvert Parking Authority',
    parking: 'multi-storey',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [380, 460],
    hours: ALL_DAY,
    payments: CARDS,
    hourlyUsd: [4, 6],
    eveningRate: true,
    holiday: true,
    charging: true,
    ring: [
      [498, 18],
      [582, 18],
      [582, 102],
      [498, 102],
    ],
    entrances: [
      [540, 18, 'IN/OUT'],
      [582, 60, 'OUT'],
    ],
    houseNumber: '500',
    street: 'Water St',
    maxHeightM: 2.1,
  },
  {
    key: 'center-street-lot',
    name: 'Center Street Lot',
    operator: 'Calvert Parking Authority',
    parking: 'surface',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [70, 95],
    hours: [
      { dowStart: 1, dowEnd: 5, open: '06:00', close: '22:00' },
      { dowStart: 6, dowEnd: 6, open: '08:00', close: '20:00' },
    ],
    payments: ['cash', 'credit_cards', 'app'],
    hourlyUsd: [2, 3],
    ring: [
      [618, 378],
      [702, 378],
      [702, 462],
      [660, 462],
      [660, 420],
      [618, 420],
    ],
    entrances: [[640, 378, 'IN/OUT']],
    houseNumber: '620',
    street: 'Center St',
  },
  {
    key: 'grand-avenue-underground',
    name: 'Grand Avenue Underground',
    operator: 'Metro Garages Inc.',
    parking: 'underground',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [260, 320],
    hours: [
      { dowStart: 1, dowEnd: 5, open: '05:30', close: '23:30' },
      { dowStart: 6, dowEnd: 7, open: '07:00', close: '23:00' },
    ],
    payments: CARDS,
    hourlyUsd: [5, 7],
    eveningRate: true,
    charging: true,
    ring: [
      [738, 618],
      [822, 618],
      [822, 702],
      [738, 702],
    ],
    entrances: [
      [738, 650, 'IN'],
      [738, 690, 'OUT'],
    ],
    houseNumber: '610',
    street: 'Lombard St',
    maxHeightM: 1.98,
  },
  {
    key: 'courthouse-lot',
    name: 'Courthouse Lot',
    operator: 'City of Port Calvert',
    parking: 'surface',
    access: 'permissive',
    fee: true,
    category: 'Public Parking',
    capacity: [50, 70],
    hours: [{ dowStart: 1, dowEnd: 5, open: '07:00', close: '19:00' }],
    payments: ['coins', 'credit_cards', 'app'],
    hourlyUsd: [1.5, 2.5],
    ring: [
      [258, 498],
      [342, 498],
      [342, 582],
      [258, 582],
    ],
    entrances: [[300, 498, 'IN/OUT']],
    houseNumber: '260',
    street: 'Court St',
  },
  {
    key: 'ridge-street-customer-lot',
    name: 'Ridge Street Customer Lot',
    operator: 'Ridge Street Market',
    parking: 'surface',
    access: 'customers',
    fee: false,
    category: 'Venue Lot',
    capacity: [30, 45],
    hours: [{ dowStart: 1, dowEnd: 7, open: '07:00', close: '22:00' }],
    payments: [],
    hourlyUsd: [0, 0],
    ring: [
      [858, 858],
      [942, 858],
      [942, 942],
      [858, 942],
    ],
    entrances: [[900, 942, 'IN/OUT']],
    houseNumber: '860',
    street: 'Ridge St',
  },
  {
    key: 'center-street-park-ride',
    name: 'Center Street Park & Ride',
    operator: 'Maryland Transit',
    parking: 'surface',
    access: 'yes',
    fee: false,
    parkRide: true,
    category: 'Park N Ride',
    capacity: [220, 280],
    hours: ALL_DAY,
    payments: [],
    hourlyUsd: [0, 0],
    charging: true,
    ring: [
      [1480, 380],
      [1590, 380],
      [1590, 470],
      [1480, 470],
    ],
    entrances: [[1540, 380, 'IN/OUT']],
    houseNumber: '1500',
    street: 'Center St',
  },
  {
    key: 'southport-ferry-lot',
    name: 'Southport Ferry Lot',
    operator: 'Port Calvert Ferry Co.',
    parking: 'surface',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [100, 130],
    hours: [{ dowStart: 1, dowEnd: 7, open: '05:00', close: '24:00' }],
    payments: ['cash', 'credit_cards', 'app'],
    hourlyUsd: [1, 2],
    ring: [
      [505, -585],
      [640, -585],
      [640, -530],
      [505, -530],
    ],
    entrances: [[560, -585, 'IN/OUT']],
    houseNumber: '510',
    street: 'Shore Rd',
  },
  {
    key: 'market-street-garage',
    name: 'Market Street Garage',
    operator: 'Metro Garages Inc.',
    parking: 'multi-storey',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [300, 380],
    hours: [
      { dowStart: 1, dowEnd: 5, open: '06:00', close: '24:00' },
      { dowStart: 6, dowEnd: 7, open: '08:00', close: '24:00' },
    ],
    payments: CARDS,
    hourlyUsd: [3, 5],
    holiday: true,
    point: [180, 180],
    entrances: [[180, 120, 'IN/OUT']],
    houseNumber: '180',
    street: 'Market St',
    maxHeightM: 2.05,
  },
  {
    key: 'hotel-lombard-garage',
    name: 'Hotel Lombard Garage',
    operator: 'Hotel Lombard',
    parking: 'underground',
    access: 'yes',
    fee: true,
    category: 'Hotel',
    capacity: [150, 190],
    hours: ALL_DAY,
    payments: ['credit_cards', 'visa', 'mastercard', 'american_express'],
    hourlyUsd: [6, 8],
    eveningRate: true,
    point: [420, 660],
    entrances: [[420, 600, 'IN/OUT']],
    houseNumber: '420',
    street: 'Lombard St',
    maxHeightM: 2.0,
  },
];
