/** Headers as fetch, undici and the provider SDKs expose them. */
export interface HeaderReader {
  get(name: string): string | null | undefined;
}

/**
 * How long a server asked the client to wait, in ms, from `retry-after-ms` (OpenAI, Azure) or
 * `retry-after` (seconds or an HTTP date). Undefined when absent or unreadable.
 *
 * ```ts
 * parseRetryAfterMs(response.headers); // 2000 for `Retry-After: 2`
 * ```
 */
export function parseRetryAfterMs(headers: HeaderReader | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
