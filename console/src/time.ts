/** Local time of the served region (not of the browser): departures, entry times, analytics days. */
import { DateTime } from 'luxon';

/** The region's clock and conversions. */
export class RegionTime {
  /** offset between the server's clock and the browser's, ms (server − browser) */
  private readonly skewMs: number;

  constructor(
    readonly zone: string,
    serverNowIso: string,
  ) {
    this.skewMs = Date.parse(serverNowIso) - Date.now();
  }

  /** Now, on the server's clock, in the region's zone. */
  now(): DateTime {
    return DateTime.fromMillis(Date.now() + this.skewMs, { zone: this.zone });
  }

  /** `yyyy-MM-dd` of a local day plus `days`. */
  day(offsetDays = 0): string {
    return this.now().plus({ days: offsetDays }).toFormat('yyyy-MM-dd');
  }

  /** The instant of local `date` (yyyy-MM-dd) at `minutes` after midnight. */
  at(date: string, minutes: number): DateTime {
    const d = DateTime.fromISO(date, { zone: this.zone }).startOf('day');
    return d.set({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
  }

  /** A local `yyyy-MM-ddTHH:mm` (e.g. a datetime-local input) in the region's zone; now when invalid. */
  parseLocal(value: string): DateTime {
    const t = DateTime.fromISO(value, { zone: this.zone });
    return t.isValid ? t : this.now();
  }

  /** An instant (unix ms) as the region's clock time with its zone, `17:45 EST`; with `withDay`, `Mon 23 Nov 17:45 EST`. */
  clock(ms: number, withDay = false): string {
    return DateTime.fromMillis(ms, { zone: this.zone }).toFormat(withDay ? 'ccc d LLL HH:mm ZZZZ' : 'HH:mm ZZZZ');
  }

  /** `YYYY-MM-DDTHH:MM:SSZ` (the routing contract's date-time format). */
  static utc(t: DateTime): string {
    return t.toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'");
  }

  /** `yyyy-MM-ddTHH:mm` local (the parking API's entry_time). */
  static local(t: DateTime): string {
    return t.toFormat("yyyy-MM-dd'T'HH:mm");
  }
}

/** `HH:MM` of minutes after midnight. */
export function hhmm(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}
