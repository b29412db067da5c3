// Types of conformance-summary.mjs, for the test that imports it.
export interface ConnectorRow {
  connector: string;
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
}
export interface Summary {
  rows: ConnectorRow[];
  total: { passed: number; failed: number; skipped: number };
}
export const CONNECTOR_PATTERNS: [string, RegExp][];
export function connectorOf(file: string, titles: string[]): string;
export function summarize(reports: unknown[]): Summary;
export function toMarkdown(summary: Summary, title?: string): string;
