import { KmError, type TagCollection } from '@km/core';

/**
 * The tags of `--tag key:value` options (KM's syntax, as the service reads upload tags); a bad
 * one (no key, a reserved `__` key) is an `invalid_tag` error, so that km exits with the usage code.
 */
export async function tagsOfOptions(values: readonly string[]): Promise<TagCollection> {
  if (values.length === 0) return {};
  // The service's parser, so that km reads tags as an upload does; loaded only when tags are given.
  const { parseTags } = await import('@km/service');
  try {
    return parseTags(values);
  } catch (error) {
    throw new KmError('invalid_tag', error instanceof Error ? error.message : String(error), { cause: error });
  }
}
