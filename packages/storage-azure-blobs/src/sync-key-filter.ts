import { InvalidInputError } from '@km/core';
import picomatch from 'picomatch';

/**
 * Which keys a sync takes, from `include` and `exclude` globs matched against the whole key
 * relative to the prefix (`**` crosses `/`, dot-names match like any other): a key is taken when
 * it matches an `include` glob (any key when there is none) and no `exclude` glob. Throws
 * `invalid_argument` for a glob list that is not a list of non-empty strings.
 */
export function syncKeyFilter(
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
  owner: string,
): (relativeKey: string) => boolean {
  const matcher = (name: string, globs: readonly string[] | undefined): ((key: string) => boolean) | undefined => {
    if (globs === undefined) return undefined;
    if (!Array.isArray(globs) || globs.some((g) => typeof g !== 'string' || g === '')) {
      throw new InvalidInputError('invalid_argument', `${owner}: ${name} must be a list of non-empty glob strings`);
    }
    return globs.length === 0 ? undefined : picomatch([...globs], { dot: true });
  };
  const included = matcher('include', include);
  const excluded = matcher('exclude', exclude);
  return (key) => (included === undefined || included(key)) && (excluded === undefined || !excluded(key));
}
