/**
 * `rateCard` / `rateCards` text rendered from structured rates when an upload gives none: one line
 * per frame, in the requested locale (en, fr, de, es; others fall back to English).
 */
import type { RateFrame, RateRule } from './rate-rule.js';

interface Words {
  days: string[];
  allDay: string;
  free: string;
  noParking: string;
  per: string;
  upTo: string;
  max: string;
  holidays: string;
  permit: Record<string, string>;
  hr: string;
  min: string;
  each: string;
  flat: string;
}

const WORDS: Record<string, Words> = {
  en: {
    days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'],
    allDay: '24 Hours',
    free: 'Free',
    noParking: 'No Parking',
    per: 'per',
    upTo: 'up to',
    max: 'Daily Max',
    holidays: 'Holidays',
    hr: 'Hr',
    min: 'Min',
    each: 'each additional',
    flat: 'Flat rate',
    permit: {
      D: 'Disabled permit only',
      R: 'Residential permit only',
      C: 'Commercial vehicles only',
      E: 'Electric vehicles only',
    },
  },
  fr: {
    days: ['Lun', 'Mar', 'Mer', 'Jeu', 'Ven', 'Sam', 'Dim'],
    allDay: '24 h',
    free: 'Gratuit',
    noParking: 'Stationnement interdit',
    per: 'par',
    upTo: "jusqu'à",
    max: 'Max. journalier',
    holidays: 'Jours fériés',
    hr: 'h',
    min: 'min',
    each: 'chaque',
    flat: 'Forfait',
    permit: {
      D: 'Réservé aux personnes handicapées',
      R: 'Réservé aux résidents',
      C: 'Véhicules commerciaux uniquement',
      E: 'Véhicules électriques uniquement',
    },
  },
  de: {
    days: ['Mo', 'Di', 'Mi', 'Do', 'Fr', 'Sa', 'So'],
    allDay: '24 Std.',
    free: 'Kostenlos',
    noParking: 'Parkverbot',
    per: 'pro',
    upTo: 'bis',
    max: 'Tageshöchstsatz',
    holidays: 'Feiertage',
    hr: 'Std.',
    min: 'Min.',
    each: 'jede weitere',
    flat: 'Pauschal',
    permit: {
      D: 'Nur mit Behindertenausweis',
      R: 'Nur für Anwohner',
      C: 'Nur Lieferverkehr',
      E: 'Nur Elektrofahrzeuge',
    },
  },
  es: {
    days: ['Lun', 'Mar', 'Mié', 'Jue', 'Vie', 'Sáb', 'Dom'],
    allDay: '24 horas',
    free: 'Gratis',
    noParking: 'Prohibido estacionar',
    per: 'por',
    upTo: 'hasta',
    max: 'Máximo diario',
    holidays: 'Festivos',
    hr: 'h',
    min: 'min',
    each: 'cada adicional',
    flat: 'Tarifa fija',
    permit: {
      D: 'Solo permiso de discapacidad',
      R: 'Solo residentes',
      C: 'Solo vehículos comerciales',
      E: 'Solo vehículos eléctricos',
    },
  },
};

/** Words for a locale tag (en-US, fr_FR, de …). */
function wordsFor(locale: string): Words {
  return WORDS[locale.slice(0, 2).toLowerCase()] ?? WORDS.en;
}

function clock(min: number): string {
  return `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;
}

function span(min: number, w: Words): string {
  if (min % 60 === 0) return `${min / 60} ${w.hr}`;
  return `${min} ${w.min}`;
}

const formats = new Map<string, Intl.NumberFormat | null>();

/** Formats integer cents in the locale with the given ISO currency (formatters are cached). */
export function formatMoney(cents: number, currencyIso: string, locale: string): string {
  const key = `${locale}|${currencyIso}`;
  let f = formats.get(key);
  if (f === undefined) {
    try {
      f = new Intl.NumberFormat(locale.replace('_', '-'), { style: 'currency', currency: currencyIso });
    } catch {
      f = null;
    }
    formats.set(key, f);
  }
  return f ? f.format(cents / 100) : `${(cents / 100).toFixed(2)} ${currencyIso}`;
}

const cards = new WeakMap<readonly RateFrame[], Map<string, string[]>>();

/** `renderRateCard` memoised per frames list, currency and locale (frames are immutable once built). */
export function rateCardOf(frames: readonly RateFrame[], currencyIso: string, locale = 'en-US'): string[] {
  let m = cards.get(frames);
  if (!m) cards.set(frames, (m = new Map()));
  const key = `${currencyIso}|${locale}`;
  let lines = m.get(key);
  if (!lines) m.set(key, (lines = renderRateCard(frames, currencyIso, locale)));
  return lines;
}

function dayRange(f: RateFrame, w: Words): string {
  if (f.dowStart === f.dowEnd) return w.days[f.dowStart - 1];
  return `${w.days[f.dowStart - 1]}-${w.days[f.dowEnd - 1]}`;
}

function price(r: RateRule, currencyIso: string, locale: string, w: Words): string {
  if (r.rateCents === 0) return w.free;
  const m = formatMoney(r.rateCents, currencyIso, locale);
  if (!Number.isFinite(r.incrementMin)) return `${w.flat} ${m}`;
  return r.repeats ? `${m} ${w.per} ${span(r.incrementMin, w)}` : `${w.upTo} ${span(r.incrementMin, w)} ${m}`;
}

/**
 * One text line per frame, e.g. "Mon-Fri 08:00-18:00: $2.00 per 1 Hr, Daily Max $20.00".
 * Uploaded `rate_line`s are used verbatim when every item of a frame has one.
 */
export function renderRateCard(frames: readonly RateFrame[], currencyIso: string, locale = 'en-US'): string[] {
  const w = wordsFor(locale);
  const lines: string[] = [];
  for (const f of frames) {
    if (f.rules.every((r) => r.line)) {
      for (const r of f.rules) if (!lines.includes(r.line)) lines.push(r.line);
      continue;
    }
    const window = f.fromMin === 0 && f.toMin === 1440 ? w.allDay : `${clock(f.fromMin)}-${clock(f.toMin)}`;
    let head = `${dayRange(f, w)} ${window}`;
    if (f.holidays === 1) head = `${w.holidays} ${window}`;
    let body: string;
    if (f.noParking) body = w.noParking;
    else {
      const parts = f.tiers.map((r) => price(r, currencyIso, locale, w));
      if (f.repeating)
        parts.push(
          f.tiers.length > 0
            ? `${formatMoney(f.repeating.rateCents, currencyIso, locale)} ${w.each} ${span(f.repeating.incrementMin, w)}`
            : price(f.repeating, currencyIso, locale, w),
        );
      if (f.maxCents !== null) parts.push(`${w.max} ${formatMoney(f.maxCents, currencyIso, locale)}`);
      body = parts.join(', ');
    }
    if (f.restriction) body = `${w.permit[f.restriction]}: ${body}`;
    lines.push(`${head}: ${body}`);
  }
  return lines;
}
