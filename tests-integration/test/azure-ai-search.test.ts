import { describeMemoryDb } from '@km/conformance';
import { AzureAiSearchMemoryDb } from '@km/memorydb-azure-ai-search';
import { afterAll } from 'vitest';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';

// Azure AI Search has no emulator: the suites run against a real service when
// KM_TEST_AZURE_SEARCH_ENDPOINT and KM_TEST_AZURE_SEARCH_API_KEY (an admin key) are set, and
// skip with one line otherwise. Indexes get a per-run prefix, and whatever a run leaves under it
// is deleted at the end, so a shared (billed) service stays clean.
const endpoint = process.env.KM_TEST_AZURE_SEARCH_ENDPOINT;
const apiKey = process.env.KM_TEST_AZURE_SEARCH_API_KEY;
const name = 'azure ai search (KM_TEST_AZURE_SEARCH_ENDPOINT)';
const run = Date.now().toString(36);
const suitePrefix = `kmt${run}-`;
const servicePrefix = `kmsvc${run}-`;
const skip =
  endpoint && apiKey
    ? undefined
    : 'set KM_TEST_AZURE_SEARCH_ENDPOINT and KM_TEST_AZURE_SEARCH_API_KEY to an Azure AI Search service (there is no emulator)';

if (skip) {
  console.log(`[km] skipped ${name}: ${skip}`);
  describeMemoryDb(name, { create: () => undefined as never, skip });
} else {
  // The service makes writes searchable within about a second; the suite polls reads for them.
  describeMemoryDb(name, {
    create: () => new AzureAiSearchMemoryDb({ endpoint: endpoint!, apiKey: apiKey!, indexPrefix: suitePrefix }),
    visibilityTimeoutMs: 10_000,
  });
  afterAll(async () => {
    for (const prefix of [suitePrefix, servicePrefix]) {
      const db = new AzureAiSearchMemoryDb({ endpoint: endpoint!, apiKey: apiKey!, indexPrefix: prefix });
      for (const index of await db.getIndexes()) await db.deleteIndex(index);
    }
  });
}

/** The documents of an index as the service counts them, once two reads 1.5 s apart agree (counts lag writes by about a second). */
async function countRecords(index: string): Promise<number> {
  const url = `${endpoint}/indexes('${servicePrefix}${index}')/docs/$count?api-version=2024-07-01`;
  const read = async () => Number(await (await fetch(url, { headers: { 'api-key': apiKey! } })).text());
  let last = await read();
  for (let i = 0; i < 8; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const now = await read();
    if (now === last) return now;
    last = now;
  }
  return last;
}

// The service, configured by environment variables alone, on the same search service.
describeServiceOnMemoryDb(
  name,
  skip
    ? { skip }
    : {
        env: {
          KM_MEMORY_DB: 'azureaisearch',
          KM_AZURE_SEARCH_ENDPOINT: endpoint!,
          KM_AZURE_SEARCH_API_KEY: apiKey!,
          KM_MEMORY_DB_PREFIX: servicePrefix,
        },
        countRecords,
      },
);
