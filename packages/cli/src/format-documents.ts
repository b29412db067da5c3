import type { DocumentFiles, DocumentSummary, TagCollection } from '@km/core';

/** Documents as a table: id, state, tags, files, size, last change (UTC); `(no documents)` when there is none. */
export function formatDocumentTable(documents: readonly DocumentSummary[]): string {
  if (documents.length === 0) return '(no documents)\n';
  const rows = documents.map((d) => [
    d.documentId,
    d.state === 'failed' && d.error ? `failed: ${oneLine(d.error, 60)}` : d.state,
    formatTags(d.tags),
    d.files.map((f) => (f.error ? `${f.name} (failed)` : f.name)).join(', ') || '-',
    formatBytes(d.size),
    formatTime(d.lastUpdate),
  ]);
  return table(['ID', 'STATE', 'TAGS', 'FILES', 'SIZE', 'UPDATED'], rows);
}

/** A document's stored files as a table: name, artifact type, size, the upload it comes from. */
export function formatDocumentFiles(files: DocumentFiles): string {
  if (files.files.length === 0) return '(no files)\n';
  const rows = files.files.map((f) => [f.name, f.artifactType, formatBytes(f.size), f.parent ?? '-']);
  return table(['NAME', 'TYPE', 'SIZE', 'FROM'], rows);
}

/** Tags as `key:value` words (a tag without value as its key), or `-`. */
export function formatTags(tags: TagCollection): string {
  const words = Object.entries(tags).flatMap(([key, values]) => values.map((v) => (v === null ? key : `${key}:${v}`)));
  return words.join(', ') || '-';
}

/** Bytes for people: `512 B`, `1.2 KB`, `3.4 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** An ISO time as `YYYY-MM-DD HH:MM` (UTC); `-` when absent or unreadable. */
function formatTime(iso: string): string {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? '-' : new Date(time).toISOString().slice(0, 16).replace('T', ' ');
}

/** Columns padded to their widest cell, two spaces apart; the last one not padded. */
function table(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
