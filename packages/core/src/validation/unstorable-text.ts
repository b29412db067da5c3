/** A UTF-16 surrogate half without its partner (not valid Unicode, refused by UTF-8 stores). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why `text` cannot be stored as text by every memory DB, or undefined when it can. PostgreSQL
 * refuses NUL (U+0000) in `text` and `jsonb`, and no UTF-8 store can hold a lone surrogate, so
 * km refuses both everywhere before anything is written, whatever the connector.
 *
 * ```ts
 * unstorableTextReason('a\u0000b'); // 'contains a NUL character (U+0000)'
 * ```
 */
export function unstorableTextReason(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (U+0000)';
  const surrogate = LONE_SURROGATE.exec(text);
  if (surrogate) {
    const code = surrogate[0].charCodeAt(0).toString(16).toUpperCase();
    return `contains a lone surrogate (U+${code}), which is not valid Unicode`;
  }
  return undefined;
}
