const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/**
 * A `date` value as a `Date`: a valid `Date`, or an ISO-8601 string (a calendar date such as
 * `2026-11-27`, read as UTC midnight, or a date-time with `Z` or an offset, so that every server
 * reads it the same). Undefined for anything else, including impossible days such as `2026-02-30`.
 *
 * ```ts
 * toDateValue('2026-11-27T10:00:00+01:00')?.toISOString(); // '2026-11-27T09:00:00.000Z'
 * ```
 */
export function toDateValue(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : new Date(value.getTime());
  if (typeof value !== 'string') return undefined;
  const match = ISO_8601.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match;
  if (!isCalendarDay(Number(year), Number(month), Number(day))) return undefined;
  if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59)) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time);
}

function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
