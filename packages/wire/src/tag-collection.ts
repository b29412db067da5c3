/**
 * Tags of a document or record: key → list of values. Keys and values are case-sensitive; a key
 * may hold several values, and a value may be null (the key without a value). Kernel Memory's
 * JSON form: `{"user":["alice"],"draft":[null]}`.
 */
export type TagCollection = Record<string, Array<string | null>>;
