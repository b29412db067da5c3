/** Characters `search.in` may split on, in order of preference; one that no value holds is chosen. */
const DELIMITERS = ['|', ',', ';', '~', '^', '#', '@', '&', '$', '!', '*', '+', '`'];

/**
 * A string as an OData literal: in single quotes, each single quote doubled. Nothing else needs
 * escaping inside an OData string literal, so no value can end the literal early or add syntax.
 *
 * ```ts
 * odataString("o'hara"); // "'o''hara'"
 * ```
 */
export function odataString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * A delimiter none of the values holds, or undefined when `search.in` could not split them
 * exactly (a value is empty or has leading or trailing white space, which it might trim, or
 * every candidate appears).
 */
export function searchInDelimiter(values: readonly string[]): string | undefined {
  if (values.some((v) => v === '' || v.trim() !== v)) return undefined;
  return DELIMITERS.find((d) => values.every((v) => !v.includes(d)));
}
