import { ElasticsearchMemoryDb } from '@km/memorydb-elasticsearch';
import { describeMemoryDbOn } from '../src/describe-memory-db-on.js';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';
import { provisionHttpBackend } from '../src/provision-search-backend.js';

// Elasticsearch 8 with security off: KM_TEST_ELASTICSEARCH_URL, or a container when a runtime
// answers. Writes use refresh=false, so the suite's polling covers near-real-time visibility.
const backend = await provisionHttpBackend({
  name: 'elasticsearch',
  label: 'Elasticsearch',
  envVar: 'KM_TEST_ELASTICSEARCH_URL',
  image: 'docker.elastic.co/elasticsearch/elasticsearch:8.19.0',
  port: 9200,
  readyPath: '/_cluster/health?wait_for_status=yellow&timeout=60s',
  environment: { 'discovery.type': 'single-node', 'xpack.security.enabled': 'false', ES_JAVA_OPTS: '-Xms512m -Xmx512m' },
});
describeMemoryDbOn(backend, {
  create: (url) => new ElasticsearchMemoryDb({ node: url, indexPrefix: 'kmtest-', refresh: false }),
  dispose: (db) => (db as ElasticsearchMemoryDb).close(),
});

// The service, configured by environment variables alone, on the same server.
describeServiceOnMemoryDb(
  backend.name,
  'skip' in backend
    ? { skip: backend.skip }
    : {
        env: { KM_MEMORY_DB: 'elasticsearch', KM_ELASTICSEARCH_URL: backend.url, KM_MEMORY_DB_PREFIX: 'kmsvc-' },
        // Refreshed first: the service writes with refresh=wait_for, the count must not depend on it.
        countRecords: async (index) => {
          await fetch(`${backend.url}/kmsvc-${index}/_refresh`, { method: 'POST' });
          return ((await (await fetch(`${backend.url}/kmsvc-${index}/_count`)).json()) as { count: number }).count;
        },
      },
);
