// The retrieval configurations the evaluation compares, and the check of which of them a build
// really runs: a build that refuses a mode (invalid_argument) or silently ignores it (its results
// equal the base configuration's on every probe question) reports "n/a" for it.

/**
 * The configurations, each `{ name, options, base? }`: `options` are given to search and ask;
 * `base` names the configuration whose results an ignored option would repeat. `default` gives
 * no mode: what a user gets. The model reranker (`hybrid+model`) is listed only when
 * `withModelReranker` is true.
 */
export function retrievalConfigs({ withModelReranker = false } = {}) {
  const configs = [
    { name: 'default', options: {} },
    { name: 'vector', options: { mode: 'vector' } },
    { name: 'lexical', options: { mode: 'lexical' }, base: 'vector' },
    { name: 'hybrid', options: { mode: 'hybrid' }, base: 'vector' },
  ];
  if (withModelReranker) configs.push({ name: 'hybrid+model', options: { mode: 'hybrid', rerank: true }, base: 'hybrid' });
  return configs;
}

/** `documentId:relevance` of every partition of a search result, in order: what "the same results" means. */
function fingerprint(result) {
  return result.results.flatMap((c) => c.partitions.map((p) => `${c.documentId}:${p.relevance.toFixed(6)}`)).join('|');
}

/**
 * For each configuration, `null` when the build runs it, else the reason it is not available:
 * refused with `invalid_argument` (its message), or ignored (same results as its base on every
 * probe question). Other errors are thrown.
 */
export async function unsupportedReasons(memory, configs, index, probes) {
  const fingerprints = {};
  const reasons = {};
  for (const config of configs) {
    const base = config.base && fingerprints[config.base];
    if (config.base && !base) {
      reasons[config.name] = `n/a (needs ${config.base})`;
      continue;
    }
    try {
      const prints = [];
      for (const probe of probes) prints.push(fingerprint(await memory.search(probe, { index, limit: 10, ...config.options })));
      if (base && prints.every((p, i) => p === base[i])) {
        reasons[config.name] = 'n/a (ignored by this build: same results as ' + config.base + ')';
      } else {
        fingerprints[config.name] = prints;
        reasons[config.name] = null;
      }
    } catch (error) {
      if (error?.code !== 'invalid_argument') throw error;
      reasons[config.name] = `n/a (not supported by this build: ${error.message})`;
    }
  }
  return reasons;
}
