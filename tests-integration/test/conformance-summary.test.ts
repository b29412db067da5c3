import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { connectorOf, summarize, toMarkdown } from '../../scripts/conformance-summary.mjs';

// The live-conformance workflow's step summary: vitest JSON reports → one row per connector.

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const script = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'conformance-summary.mjs');

const test = (ancestorTitles: string[], title: string, status: string) => ({
  ancestorTitles,
  title,
  fullName: [...ancestorTitles, title].join(' '),
  status,
  failureMessages: status === 'failed' ? ['AssertionError: boom'] : [],
});

/** A vitest JSON report (the shape `--reporter=json` writes) over a few connectors. */
const integrationReport = {
  numTotalTests: 9,
  success: false,
  testResults: [
    {
      name: '/home/runner/work/km/km/tests-integration/test/qdrant.test.ts',
      status: 'failed',
      message: '',
      assertionResults: [
        test(['memory DB: qdrant'], 'upserts and reads back', 'passed'),
        test(['memory DB: qdrant'], 'filters by tag', 'failed'),
        test(['service on qdrant'], 'uploads | searches', 'passed'),
      ],
    },
    {
      name: '/home/runner/work/km/km/tests-integration/test/queues.test.ts',
      status: 'passed',
      message: '',
      assertionResults: [
        test(['RabbitMqQueue'], 'delivers', 'passed'),
        test(['AzureQueue'], 'delivers', 'skipped'),
        test(['FileQueue'], 'delivers', 'passed'),
      ],
    },
    {
      name: '/home/runner/work/km/km/tests-integration/test/mongodb.test.ts',
      status: 'failed',
      message: 'Error: container did not start\n    at …',
      assertionResults: [],
    },
  ],
};
const packagesReport = {
  testResults: [
    {
      name: '/home/runner/work/km/km/packages/memorydb-postgres/test/conformance.test.ts',
      status: 'passed',
      assertionResults: [test(['postgres'], 'a', 'passed'), test(['postgres'], 'b', 'todo')],
    },
  ],
};

describe('conformance summary', () => {
  it('names the connector from titles, then the file, then the package folder', () => {
    expect(connectorOf('/x/tests-integration/test/queues.test.ts', ['RabbitMqQueue', 'delivers'])).toBe('@km/queue-rabbitmq');
    expect(connectorOf('/x/tests-integration/test/queues.test.ts', ['AzureQueue', 'delivers'])).toBe('@km/queue-azure');
    expect(connectorOf('/x/tests-integration/test/content-storage-s3.test.ts', ['content storage', 'writes'])).toBe('@km/storage-s3');
    expect(connectorOf('/x/tests-integration/test/postgres-restart.test.ts', ['restart'])).toBe('@km/memorydb-postgres');
    expect(connectorOf('C:\\km\\packages\\memorydb-redis\\test\\connect-check.test.ts', ['x'])).toBe('@km/memorydb-redis');
    expect(connectorOf('/x/tests-integration/test/simple-memory-dbs.test.ts', ['SimpleVectorDb (disk)', 'x'])).toBe(
      'other (in-process, service, CLI)',
    );
  });

  it('counts passed, failed and skipped per connector, a file that never ran as one failure', () => {
    const { rows, total } = summarize([integrationReport, packagesReport]);
    expect(rows.map(({ connector, passed, failed, skipped }) => [connector, passed, failed, skipped])).toEqual([
      ['@km/memorydb-mongodb', 0, 1, 0],
      ['@km/memorydb-postgres', 1, 0, 1],
      ['@km/memorydb-qdrant', 2, 1, 0],
      ['@km/queue-azure', 0, 0, 1],
      ['@km/queue-rabbitmq', 1, 0, 0],
      ['other (in-process, service, CLI)', 1, 0, 0],
    ]);
    expect(total).toEqual({ passed: 5, failed: 2, skipped: 2 });
    expect(rows[0]?.failures).toEqual(['mongodb.test.ts: Error: container did not start']);
  });

  it('prints a markdown table with a result per connector and the failed tests', () => {
    const markdown = toMarkdown(summarize([integrationReport, packagesReport]));
    expect(markdown).toContain('| connector | result | passed | failed | skipped |');
    expect(markdown).toContain('| @km/memorydb-qdrant | ❌ failed | 2 | 1 | 0 |');
    expect(markdown).toContain('| @km/queue-azure | ⏭️ skipped | 0 | 0 | 1 |');
    expect(markdown).toContain('| @km/queue-rabbitmq | ✅ passed | 1 | 0 | 0 |');
    expect(markdown).toContain('| **total** | | **5** | **2** | **2** |');
    expect(markdown).toContain('- @km/memorydb-qdrant: qdrant.test.ts: memory DB: qdrant filters by tag');
  });

  it('runs as a command over report files, and refuses a file that is not a vitest report', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-summary-'));
    dirs.push(dir);
    await writeFile(join(dir, 'a.json'), JSON.stringify(integrationReport));
    await writeFile(join(dir, 'b.json'), JSON.stringify(packagesReport));
    const out = execFileSync(process.execPath, [script, join(dir, 'a.json'), join(dir, 'b.json')], { encoding: 'utf8' });
    expect(out).toContain('| @km/memorydb-postgres | ✅ passed | 1 | 0 | 1 |');
    await writeFile(join(dir, 'bad.json'), '{"numTotalTests": 1}');
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, [script, join(dir, 'bad.json')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: string }).stderr);
    }
    expect(status).toBe(2);
    expect(stderr).toContain('not a vitest JSON report');
  });
});
