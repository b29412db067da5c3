import { KmError, type TagCollection } from '@km/core';
import { parseTags } from '@km/service';

/**
 * The tags of `--tag key:value` options (KM's syntax, as the service reads upload tags); a bad
 * one (no key, a reserved `__` key) is an `invalid_tag` error, so that km exits with the usage code.
 */
export function tagsOfOptions(values: readonly string[]): TagCollection {
  try {
    return parseTags(values);
  } catch (error) {
    throw new KmError('invalid_tag', error instanceof Error ? error.message : String(error), { cause: error });
  }
}
