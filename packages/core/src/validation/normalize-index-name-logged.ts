import type { Logger } from '../util/logger.js';
import { normalizeIndexName } from './index-name.js';

/** Names already reported per logger, so a name used on every request is reported once (bounded). */
const reportedBy = new WeakMap<Logger, Set<string>>();
const MAX_REPORTED = 1000;

/**
 * {@link normalizeIndexName}, with a warning when normalisation changes a name the caller gave:
 * names that differ only in case or separators (`A b`, `a/b`, `a_b`) share one index (`a-b`),
 * which would otherwise go unnoticed. Each name is reported once per logger. No name (the
 * default index) is not reported.
 *
 * ```ts
 * normalizeIndexNameLogged('Team/Docs', logger); // 'team-docs', warns: index name "Team/Docs" is used as index "team-docs"
 * ```
 */
export function normalizeIndexNameLogged(index: string | null | undefined, logger: Logger): string {
  const normalized = normalizeIndexName(index);
  if (typeof index !== 'string' || index.trim() === '' || index === normalized) return normalized;
  let reported = reportedBy.get(logger);
  if (!reported) reportedBy.set(logger, (reported = new Set()));
  if (reported.has(index)) return normalized;
  if (reported.size >= MAX_REPORTED) reported.clear();
  reported.add(index);
  logger.warn(`index name ${JSON.stringify(index)} is used as index "${normalized}": names that normalise alike share one index`, {
    given: index,
    index: normalized,
  });
  return normalized;
}
