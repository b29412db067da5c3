import { collectionLifecycleCases } from './collection-lifecycle-cases.js';
import { existingSchemaCases } from './existing-schema-cases.js';
import { filterSuiteCases } from './filter-cases-suite.js';
import { injectionCases } from './injection-cases.js';
import { queryCases } from './query-cases.js';
import { recordCases } from './record-cases.js';
import { searchCases } from './search-cases.js';
import type { VectorStoreCases } from './vector-store-fixture.js';

/** Every case of {@link describeVectorStore}, by group, each keyed by the rule it checks. */
export function vectorStoreCaseGroups(): Readonly<Record<string, VectorStoreCases>> {
  return {
    'collection lifecycle': collectionLifecycleCases,
    records: recordCases,
    search: searchCases,
    filters: filterSuiteCases(),
    'query by filter': queryCases,
    injection: injectionCases,
    'existing schema': existingSchemaCases,
  };
}
