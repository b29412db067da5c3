import type { SyncCounts, SyncProgress } from '@km/core';
import type { CliOutput } from './cli-context.js';

/** `added 5, updated 10, unchanged 180, deleted 5, failed 0 in 3.2 s` */
export function formatSyncSummary(counts: SyncCounts, durationMs: number): string {
  const { added, updated, unchanged, deleted, failed } = counts;
  return `added ${added}, updated ${updated}, unchanged ${unchanged}, deleted ${deleted}, failed ${failed} in ${(durationMs / 1000).toFixed(1)} s`;
}

/**
 * Shows a sync's progress on stderr: on a terminal one counter line redrawn in place; otherwise
 * one line per item acted on (`added notes/a.md`), unchanged items left out, or (for a job of a
 * service, which gives counts only) a line each time the counts change.
 */
export class SyncProgressPrinter {
  private drawn = false;
  private lastCounts = '';

  constructor(private readonly out: CliOutput = process.stderr) {}

  /** A step of a sync run in this process. */
  item(progress: SyncProgress): void {
    if (this.out.isTTY) return this.counter(progress.phase, progress.counts);
    if (!progress.action || progress.action === 'unchanged' || progress.itemId === undefined) return;
    const reason = progress.action === 'failed' && progress.error ? `: ${progress.error}` : '';
    this.out.write(`${progress.action} ${progress.itemId || '(listing)'}${reason}\n`);
  }

  /** The counts of a service's job, at each poll. */
  counts(phase: string, counts: SyncCounts): void {
    if (this.out.isTTY) return this.counter(phase, counts);
    const line = countsLine(phase, counts);
    if (line === this.lastCounts) return;
    this.lastCounts = line;
    this.out.write(`${line}\n`);
  }

  /** Ends the counter line, before the summary is printed. */
  stop(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }

  private counter(phase: string, counts: SyncCounts): void {
    this.out.write(`\r\x1b[2K${countsLine(phase, counts)}`);
    this.drawn = true;
  }
}

function countsLine(phase: string, c: SyncCounts): string {
  return `${phase}: listed ${c.listed}, added ${c.added}, updated ${c.updated}, unchanged ${c.unchanged}, deleted ${c.deleted}, failed ${c.failed}`;
}
