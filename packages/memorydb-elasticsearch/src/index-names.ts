import { InvalidInputError } from '@km/core';

/** Elasticsearch's longest index name, in bytes. */
export const MAX_ELASTICSEARCH_INDEX_BYTES = 255;
const FORBIDDEN = /[\\/*?"<>| ,#:A-Z]/;

/**
 * Checks an index prefix against Elasticsearch's naming rules: lower case, none of
 * `\ / * ? " < > | , # :` or spaces, not starting with `-`, `_`, `+` or `.` (hidden and system
 * indexes). An empty prefix is allowed.
 */
export function checkIndexPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  if (FORBIDDEN.test(prefix) || /^[-_+.]/.test(prefix) || Buffer.byteLength(prefix) > 200) {
    throw new InvalidInputError(
      'invalid_argument',
      `indexPrefix "${prefix}" breaks Elasticsearch's index naming rules (lower case, no \\ / * ? " < > | , # : or spaces, not starting with - _ + .)`,
      { connector: 'elasticsearch' },
    );
  }
  return prefix;
}

/**
 * The Elasticsearch index of a normalised km index name (`[a-z0-9-]+`): the prefix plus the
 * name, refused with invalid_index_name when the result breaks Elasticsearch's rules (a name
 * starting with `-` and no prefix, or longer than 255 bytes).
 */
export function elasticsearchIndexName(prefix: string, index: string): string {
  const name = `${prefix}${index}`;
  if (
    FORBIDDEN.test(name) ||
    /^[-_+.]/.test(name) ||
    name === '.' ||
    name === '..' ||
    Buffer.byteLength(name) > MAX_ELASTICSEARCH_INDEX_BYTES
  ) {
    throw new InvalidInputError(
      'invalid_index_name',
      `index "${index}" gives "${name}", which Elasticsearch does not accept as an index name`,
      {
        connector: 'elasticsearch',
      },
    );
  }
  return name;
}
