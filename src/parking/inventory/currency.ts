/** Currency of a region from its ISO country code: ISO 4217 code and symbol. */

const BY_COUNTRY: Record<string, string> = {
  US: 'USD',
  CA: 'CAD',
  GB: 'GBP',
  CH: 'CHF',
  AU: 'AUD',
  NZ: 'NZD',
  JP: 'JPY',
  SE: 'SEK',
  NO: 'NOK',
  DK: 'DKK',
  PL: 'PLN',
  CZ: 'CZK',
  HU: 'HUF',
  MX: 'MXN',
  BR: 'BRL',
  IN: 'INR',
};

const SYMBOLS: Record<string, string> = {
  USD: '$',
  CAD: '$',
  AUD: '$',
  NZD: '$',
  MXN: '$',
  EUR: '€',
  GBP: '£',
  JPY: '¥',
  CHF: 'CHF',
  INR: '₹',
  BRL: 'R$',
};

/** ISO 4217 code for a country ('' or unknown European countries → EUR; unknown elsewhere → USD). */
export function currencyOfCountry(country: string): string {
  const c = country.toUpperCase();
  if (BY_COUNTRY[c]) return BY_COUNTRY[c];
  return c === '' ? 'USD' : 'EUR';
}

/** Symbol of an ISO 4217 code (the code itself when no symbol is known). */
export function currencySymbol(iso: string): string {
  return SYMBOLS[iso] ?? iso;
}
