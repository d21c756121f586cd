/**
 * Reads the `hrs` text lines of an upload ("Mon-Fri: 6:00 AM - 12:00 AM", "Sat-Sun: 24 Hours",
 * "Sun: Closed") into an OSM opening_hours value, so `isOpen` follows uploaded hours too.
 */

const DAYS: Record<string, string> = { mon: 'Mo', tue: 'Tu', wed: 'We', thu: 'Th', fri: 'Fr', sat: 'Sa', sun: 'Su' };

function clock(h: string, m: string | undefined, ampm: string | undefined, isClose: boolean): string | null {
  let hour = Number(h);
  const minute = m ? Number(m) : 0;
  if (minute > 59) return null;
  if (ampm) {
    if (hour < 1 || hour > 12) return null;
    const pm = ampm.toLowerCase() === 'pm';
    hour = (hour % 12) + (pm ? 12 : 0);
    if (isClose && hour === 0 && minute === 0) hour = 24; // "12:00 AM" as a closing time = midnight at the end of the day
  } else if (hour > 24) return null;
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}

/** OSM opening_hours for hrs lines, or null when a line cannot be read. */
export function hrsToOpeningHours(lines: readonly string[]): string | null {
  if (lines.length === 0) return null;
  const rules: string[] = [];
  for (const raw of lines) {
    const m =
      /^\s*(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?(?:\s*-\s*(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?)?\s*:\s*(.+?)\s*$/i.exec(
        raw,
      );
    if (!m) return null;
    const days = m[2] ? `${DAYS[m[1].toLowerCase()]}-${DAYS[m[2].toLowerCase()]}` : DAYS[m[1].toLowerCase()];
    const body = m[3].toLowerCase();
    if (/^(24 ?hours|24 ?hrs|open 24 hours|24\/7)$/.test(body)) {
      rules.push(`${days} 00:00-24:00`);
      continue;
    }
    if (body === 'closed') {
      rules.push(`${days} off`);
      continue;
    }
    const r = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*[-–]\s*(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(body);
    if (!r) return null;
    const open = clock(r[1], r[2], r[3] ?? r[6], false);
    const close = clock(r[4], r[5], r[6], true);
    if (!open || !close) return null;
    rules.push(`${days} ${open}-${close}`);
  }
  return rules.join('; ');
}
