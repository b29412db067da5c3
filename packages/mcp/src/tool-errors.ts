import { KmError, type KmErrorCode } from '@km/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What a failed tool call is called, per km error code, so an agent can tell its mistake from an outage. */
const LABELS: Partial<Record<KmErrorCode, string>> = {
  invalid_argument: 'Invalid argument',
  invalid_index_name: 'Invalid index name',
  invalid_document_id: 'Invalid document id',
  invalid_file_name: 'Invalid file name',
  invalid_tag: 'Invalid tag',
  invalid_filter: 'Invalid filter',
  unsupported_filter: 'Filter not supported by this memory',
  index_not_found: 'Index not found',
  document_not_found: 'Document not found',
  document_busy: 'Document busy (try again once its ingestion or deletion is done)',
  sync_busy: 'Another sync of this source is running (try again once it is done)',
  file_not_found: 'File not found',
  empty_content: 'Nothing to import',
  content_too_large: 'Content too large',
  unsupported_content: 'Unsupported content',
  input_too_long: 'Input too long',
  handler_not_found: 'Unknown pipeline step',
  pipeline_failed: 'Ingestion failed',
  not_configured: 'Not configured on this server',
  transient: 'Temporarily unavailable (try again)',
  rate_limited: 'Rate limited (try again later)',
  upstream_error: 'A service behind the memory failed',
  unauthorized: 'Access refused',
  aborted: 'Cancelled',
  write_conflict: 'Conflicting write (try again)',
  vector_size_mismatch: 'Embedding size mismatch',
  storage_corrupt: 'Stored data is damaged',
};

/** Reports an unexpected (non-km) error; its details stay out of the tool result. */
export type ToolErrorLogger = (message: string, fields: Record<string, unknown>) => void;

/** A tool result that tells the agent what went wrong (`isError: true`). */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Turns whatever a tool's work threw into a tool error: a KmError becomes its label and message
 * (`Invalid index name: index name "a*" is invalid: ...`); anything else is logged and reported
 * as an internal error without its internals.
 */
export function toolErrorOf(error: unknown, tool: string, log?: ToolErrorLogger): CallToolResult {
  const km = asKmError(error);
  if (km) {
    const detail = km.message.replace(/^\[km\]\s*/, '');
    return errorResult(`${LABELS[km.code] ?? `Error (${km.code})`}: ${detail}`);
  }
  log?.('MCP tool failed', { tool, err: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return errorResult(`Internal error while running ${tool}; the server log has the details.`);
}

/** A KmError, also one from another copy of @km/core (same name and a string code). */
function asKmError(error: unknown): KmError | undefined {
  if (error instanceof KmError) return error;
  const e = error as { name?: unknown; code?: unknown; message?: unknown } | null;
  if (e && typeof e === 'object' && typeof e.code === 'string' && typeof e.message === 'string' && String(e.name).endsWith('Error')) {
    if (e.message.startsWith('[km]')) return e as unknown as KmError;
  }
  return undefined;
}
