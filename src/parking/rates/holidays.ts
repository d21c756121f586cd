/**
 * Public holidays used by the rate engine's holiday rules (`holidays: 1` / `-1`). The United States
 * calendar is the federal one with weekend observance (Saturday → Friday, Sunday → Monday); other
 * countries get the widely shared fixed days (1 January, 1 May, 25 and 26 December).
 */

function iso(y: number, m: number, d: number): string {
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** ISO weekday (1 Monday … 7 Sunday) of a calendar date. */
function weekday(y: number, m: number, d: number): number {
  const w = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return w === 0 ? 7 : w;
}

/** Day of month of the n-th (1-based) ISO weekday `dow` of a month; n = -1 for the last. */
function nthWeekday(y: number, m: number, dow: number, n: number): number {
  if (n > 0) {
    const first = weekday(y, m, 1);
    return 1 + ((dow - first + 7) % 7) + (n - 1) * 7;
  }
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const lw = weekday(y, m, last);
  return last - ((lw - dow + 7) % 7);
}

/** Observed date of a fixed-date US federal holiday (Saturday → Friday, Sunday → Monday). */
function observed(y: number, m: number, d: number): string {
  const w = weekday(y, m, d);
  const t = new Date(Date.UTC(y, m - 1, d + (w === 6 ? -1 : w === 7 ? 1 : 0)));
  return iso(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
}

/** US federal holidays of `year` as observed, ISO dates "YYYY-MM-DD". */
export function usFederalHolidays(year: number): string[] {
  return [
    observed(year, 1, 1),
    iso(year, 1, nthWeekday(year, 1, 1, 3)), // Martin Luther King Jr. Day
    iso(year, 2, nthWeekday(year, 2, 1, 3)), // Washington's Birthday
    iso(year, 5, nthWeekday(year, 5, 1, -1)), // Memorial Day
    observed(year, 6, 19),
    observed(year, 7, 4),
    iso(year, 9, nthWeekday(year, 9, 1, 1)), // Labor Day
    iso(year, 10, nthWeekday(year, 10, 1, 2)), // Columbus Day
    observed(year, 11, 11),
    iso(year, 11, nthWeekday(year, 11, 4, 4)), // Thanksgiving
    observed(year, 12, 25),
  ];
}

/** A holiday predicate over ISO dates for an ISO country code ('' = generic fixed days). */
export function holidayCalendar(country: string): (isoDate: string) => boolean {
  const cache = new Map<number, Set<string>>();
  const us = country.toUpperCase() === 'US';
  return (isoDate: string) => {
    const year = Number(isoDate.slice(0, 4));
    let set = cache.get(year);
    if (!set) {
      set = new Set(
        us ? usFederalHolidays(year) : [iso(year, 1, 1), iso(year, 5, 1), iso(year, 12, 25), iso(year, 12, 26)],
      );
      cache.set(year, set);
    }
    return set.has(isoDate);
  };
}
