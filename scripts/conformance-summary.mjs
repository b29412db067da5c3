#!/usr/bin/env node
// Per-connector results of vitest runs, as a markdown table (the live-conformance workflow appends
// it to $GITHUB_STEP_SUMMARY). Input: files written by `vitest run --reporter=json --outputFile=…`.
//
//   node scripts/conformance-summary.mjs integration.json packages.json >> "$GITHUB_STEP_SUMMARY"
//
// A test counts for the connector its describe/test titles name (a queue suite in a shared file
// names RabbitMQ or Azure), else the one its file names; tests under packages/<folder>/ count for
// @km/<folder>. Exit codes: 0 (the table is a report; the test step fails the job), 2 bad input.
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Connector packages and the words that name them in integration test titles and file names. */
export const CONNECTOR_PATTERNS = [
  ['@km/memorydb-azure-ai-search', /azure[\s-]?ai[\s-]?search/i],
  ['@km/queue-azure', /azure[\s-]?queue/i],
  ['@km/storage-azure-blobs', /azure[\s-]?blob/i],
  ['@km/storage-s3', /(^|[^a-z0-9])s3([^a-z0-9]|$)|minio|s3rver/i],
  ['@km/queue-rabbitmq', /rabbit/i],
  ['@km/memorydb-qdrant', /qdrant/i],
  ['@km/memorydb-elasticsearch', /elasticsearch/i],
  ['@km/memorydb-mongodb', /mongo/i],
  ['@km/memorydb-redis', /redis/i],
  ['@km/memorydb-postgres', /postgres|pgvector|pglite/i],
];

const OTHER = 'other (in-process, service, CLI)';

/**
 * The connector a test belongs to.
 * @param {string} file the test file's path (as vitest reports it)
 * @param {string[]} titles the describe titles and the test title
 */
export function connectorOf(file, titles) {
  const normalized = file.replaceAll('\\', '/');
  const inPackage = /(?:^|\/)packages\/([^/]+)\//.exec(normalized)?.[1];
  if (inPackage) return `@km/${inPackage}`;
  for (const text of [titles.join(' '), basename(normalized)]) {
    for (const [name, pattern] of CONNECTOR_PATTERNS) if (pattern.test(text)) return name;
  }
  return OTHER;
}

/** @param {string} status a vitest assertion status */
function bucketOf(status) {
  if (status === 'passed') return 'passed';
  if (status === 'failed') return 'failed';
  return 'skipped'; // skipped, pending, todo, disabled
}

/**
 * Counts by connector from parsed vitest JSON reports.
 * @param {unknown[]} reports
 * @returns {{ rows: { connector: string, passed: number, failed: number, skipped: number, failures: string[] }[], total: { passed: number, failed: number, skipped: number } }}
 */
export function summarize(reports) {
  /** @type {Map<string, { connector: string, passed: number, failed: number, skipped: number, failures: string[] }>} */
  const byConnector = new Map();
  const row = (connector) => {
    let r = byConnector.get(connector);
    if (!r) byConnector.set(connector, (r = { connector, passed: 0, failed: 0, skipped: 0, failures: [] }));
    return r;
  };
  for (const report of reports) {
    const files = /** @type {any} */ (report)?.testResults;
    if (!Array.isArray(files)) throw new Error('not a vitest JSON report (no "testResults" array)');
    for (const file of files) {
      const name = String(file.name ?? '');
      const tests = Array.isArray(file.assertionResults) ? file.assertionResults : [];
      if (tests.length === 0 && file.status === 'failed') {
        // The file failed before any test ran (an import or a beforeAll threw).
        const r = row(connectorOf(name, []));
        r.failed += 1;
        r.failures.push(`${basename(name)}: ${String(file.message ?? 'failed to run').split('\n')[0]}`);
        continue;
      }
      for (const test of tests) {
        const titles = [...(test.ancestorTitles ?? []), test.title ?? ''];
        const r = row(connectorOf(name, titles));
        const bucket = bucketOf(test.status);
        r[bucket] += 1;
        if (bucket === 'failed') r.failures.push(`${basename(name)}: ${test.fullName ?? titles.join(' > ')}`);
      }
    }
  }
  const rows = [...byConnector.values()].sort(
    (a, b) => (a.connector === OTHER) - (b.connector === OTHER) || a.connector.localeCompare(b.connector),
  );
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const r of rows) for (const k of /** @type {const} */ (['passed', 'failed', 'skipped'])) total[k] += r[k];
  return { rows, total };
}

/** Markdown table (and the first failures) of a summary. @param {ReturnType<typeof summarize>} summary */
export function toMarkdown({ rows, total }, title = 'Live conformance') {
  const lines = [`### ${title}`, '', '| connector | result | passed | failed | skipped |', '| --- | --- | ---: | ---: | ---: |'];
  for (const r of rows) {
    const result = r.failed > 0 ? '❌ failed' : r.passed > 0 ? '✅ passed' : '⏭️ skipped';
    lines.push(`| ${r.connector} | ${result} | ${r.passed} | ${r.failed} | ${r.skipped} |`);
  }
  lines.push(`| **total** | | **${total.passed}** | **${total.failed}** | **${total.skipped}** |`);
  const failures = rows.flatMap((r) => r.failures.map((f) => `- ${r.connector}: ${f.replaceAll('|', '\\|')}`));
  if (failures.length > 0) {
    lines.push('', `**Failed (${failures.length})**`, '', ...failures.slice(0, 50));
    if (failures.length > 50) lines.push(`- … and ${failures.length - 50} more`);
  }
  return `${lines.join('\n')}\n`;
}

function main() {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error('usage: node scripts/conformance-summary.mjs <vitest-json-report>...');
    process.exit(2);
  }
  try {
    const reports = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
    process.stdout.write(toMarkdown(summarize(reports)));
  } catch (error) {
    console.error(`conformance-summary: ${error.message}`);
    process.exit(2);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
