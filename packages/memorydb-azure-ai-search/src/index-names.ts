import { InvalidInputError } from '@km/core';

/** Azure AI Search's longest index name, in characters (ASCII, so also bytes). */
export const MAX_AZURE_INDEX_NAME_LENGTH = 128;

const CONNECTOR = 'azureaisearch';
const NAME_CHARACTERS = /^[a-z0-9_-]*$/;

/** Why a name breaks Azure AI Search's rules for index names, or undefined when it follows them. */
function ruleBroken(name: string): string | undefined {
  if (!NAME_CHARACTERS.test(name)) return 'only lower-case letters, digits, - and _ are allowed';
  if (name.length < 2 || name.length > MAX_AZURE_INDEX_NAME_LENGTH) return `it must be 2 to ${MAX_AZURE_INDEX_NAME_LENGTH} characters`;
  if (!/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name)) return 'it must start and end with a letter or a digit';
  if (/--|__/.test(name)) return 'it cannot hold consecutive dashes or underscores';
  return undefined;
}

/**
 * Checks an index prefix: lower-case letters, digits, `-` and `_`, starting with a letter or a
 * digit, without `--` or `__`, leaving room for a name. An empty prefix is allowed.
 */
export function checkIndexPrefix(prefix: string): string {
  const bad =
    !NAME_CHARACTERS.test(prefix) ||
    (prefix !== '' && !/^[a-z0-9]/.test(prefix)) ||
    /--|__/.test(prefix) ||
    prefix.length >= MAX_AZURE_INDEX_NAME_LENGTH;
  if (bad) {
    throw new InvalidInputError(
      'invalid_argument',
      `indexPrefix "${prefix}" breaks Azure AI Search's index naming rules (lower-case letters, digits, - and _, starting with a letter or a digit, no -- or __)`,
      { connector: CONNECTOR },
    );
  }
  return prefix;
}

/**
 * The Azure AI Search index of a normalised km index name (`[a-z0-9-]+`): the prefix plus the
 * name, refused with `invalid_index_name` when the result breaks the service's rules: at most
 * 128 characters, at least 2, starting and ending with a letter or a digit, and no consecutive
 * dashes (km names may hold them: `a  b` and `a._b` both normalise to `a--b`). km names are
 * not rewritten, so two km indexes never share an Azure index.
 *
 * ```ts
 * azureIndexName('km-', 'notes'); // 'km-notes'
 * azureIndexName('km-', 'a--b');  // throws invalid_index_name
 * ```
 */
export function azureIndexName(prefix: string, index: string): string {
  const name = `${prefix}${index}`;
  const broken = ruleBroken(name);
  if (broken) {
    throw new InvalidInputError(
      'invalid_index_name',
      `index "${index}" gives the Azure AI Search index "${name}", which the service refuses: ${broken}`,
      { connector: CONNECTOR },
    );
  }
  return name;
}
