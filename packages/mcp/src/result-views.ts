import {
  RESERVED_TAG_PREFIX,
  isStatusReady,
  statusFailure,
  type Citation,
  type CitationPartition,
  type DataPipelineStatus,
  type DocumentList,
  type DocumentSummary,
  type MemoryAnswer,
  type SearchResult,
  type TagCollection,
} from '@km/core';

/** Where a passage sits in its file: the PDF page, or the section of formats that have them. */
function placeOf(citation: Citation, partition: CitationPartition): { page?: number; section?: number } {
  if (!(partition.sectionNumber > 0)) return {};
  return isPdf(citation) ? { page: partition.sectionNumber } : { section: partition.sectionNumber };
}

function isPdf(citation: Citation): boolean {
  return citation.sourceContentType === 'application/pdf' || /\.pdf$/i.test(citation.sourceName);
}

/** The document's tags without km's reserved ones. */
function userTags(tags: TagCollection): TagCollection {
  return Object.fromEntries(Object.entries(tags).filter(([key]) => !key.startsWith(RESERVED_TAG_PREFIX)));
}

function citationHead(c: Citation) {
  return {
    documentId: c.documentId,
    index: c.index,
    fileName: c.sourceName,
    contentType: c.sourceContentType,
    link: c.link,
    ...(c.sourceUrl ? { sourceUrl: c.sourceUrl } : {}),
  };
}

/** The structured result of `search`: each source with its passages, page or section, relevance and tags. */
export function searchView(result: SearchResult) {
  return {
    query: result.query,
    noResult: result.noResult,
    results: result.results.map((c) => {
      const { documentId, index, fileName, contentType, link, ...url } = citationHead(c);
      return {
        documentId,
        index,
        fileId: c.fileId,
        fileName,
        contentType,
        link,
        ...url,
        partitions: c.partitions.map((p) => ({
          text: p.text,
          relevance: p.relevance,
          partitionNumber: p.partitionNumber,
          ...placeOf(c, p),
          lastUpdate: p.lastUpdate,
          tags: userTags(p.tags),
        })),
      };
    }),
  };
}

/** `search` as text: numbered sources, each passage with its relevance and place, in full. */
export function searchText(view: ReturnType<typeof searchView>): string {
  if (view.results.length === 0) return `No results for ${JSON.stringify(view.query)}.`;
  const lines = [`${view.results.length} source(s) for ${JSON.stringify(view.query)}:`];
  view.results.forEach((c, i) => {
    lines.push('', `[${i + 1}] ${c.fileName} (document ${c.documentId}, index ${c.index}${c.sourceUrl ? `, ${c.sourceUrl}` : ''})`);
    for (const p of c.partitions) {
      const place = p.page !== undefined ? `, page ${p.page}` : p.section !== undefined ? `, section ${p.section}` : '';
      lines.push(`- relevance ${p.relevance.toFixed(3)}${place}:`, indent(p.text));
    }
  });
  return lines.join('\n');
}

/** The structured result of `ask`: the answer and each source once, with the pages or sections used. */
export function askView(answer: MemoryAnswer) {
  return {
    question: answer.question,
    answer: answer.text,
    noResult: answer.noResult,
    ...(answer.noResultReason ? { noResultReason: answer.noResultReason } : {}),
    sources: answer.relevantSources.map((c) => {
      const places = c.partitions.map((p) => placeOf(c, p));
      const pages = unique(places.map((p) => p.page));
      const sections = unique(places.map((p) => p.section));
      return {
        ...citationHead(c),
        ...(pages.length > 0 ? { pages } : {}),
        ...(sections.length > 0 ? { sections } : {}),
        relevance: Math.max(...c.partitions.map((p) => p.relevance), 0),
      };
    }),
  };
}

/** `ask` as text: the answer, then its numbered sources. */
export function askText(view: ReturnType<typeof askView>): string {
  if (view.sources.length === 0) return view.answer;
  const sources = view.sources.map((s, i) => {
    const where = s.pages ? `, page ${s.pages.join(', ')}` : s.sections ? `, section ${s.sections.join(', ')}` : '';
    return `[${i + 1}] ${s.fileName} (document ${s.documentId}, index ${s.index}${where}) ${s.sourceUrl ?? s.link}`;
  });
  return `${view.answer}\n\nSources:\n${sources.join('\n')}`;
}

/** A document's state in one word. */
export function stateOf(status: DataPipelineStatus): 'completed' | 'failed' | 'in_progress' {
  if (statusFailure(status) !== undefined) return 'failed';
  return status.completed ? 'completed' : 'in_progress';
}

/** The structured result of `get_document_status`. */
export function statusView(status: DataPipelineStatus) {
  const error = statusFailure(status);
  return {
    documentId: status.document_id,
    index: status.index,
    state: stateOf(status),
    ready: isStatusReady(status),
    ...(error !== undefined ? { error } : {}),
    completedSteps: status.completed_steps,
    remainingSteps: status.remaining_steps,
    ...(status.failed_files?.length ? { failedFiles: status.failed_files } : {}),
    tags: userTags(status.tags),
    ...(status.creation ? { creation: status.creation } : {}),
    ...(status.last_update ? { lastUpdate: status.last_update } : {}),
  };
}

/** `get_document_status` as text. */
export function statusText(view: ReturnType<typeof statusView>): string {
  const steps = `done: ${view.completedSteps.join(', ') || '-'}; left: ${view.remainingSteps.join(', ') || '-'}`;
  const state = view.state === 'in_progress' ? 'in progress' : view.state;
  return `Document ${view.documentId} in index ${view.index}: ${state}${view.error ? ` (${view.error})` : ''}; ${steps}.`;
}

/** One document of `list_documents` and `update_document_tags` (its steps left out but those remaining). */
export function documentView(document: DocumentSummary) {
  return {
    documentId: document.documentId,
    index: document.index,
    state: document.state,
    ...(document.error !== undefined ? { error: document.error } : {}),
    tags: userTags(document.tags),
    files: document.files,
    size: document.size,
    creation: document.creation,
    lastUpdate: document.lastUpdate,
    remainingSteps: document.remainingSteps,
  };
}

/** The structured result of `list_documents`. */
export function documentListView(list: DocumentList) {
  return { index: list.index, documents: list.documents.map(documentView), nextCursor: list.nextCursor };
}

/** A document on one line: id, state (with the failure), tags, files and last change. */
export function documentLine(view: ReturnType<typeof documentView>): string {
  const state = view.state === 'in_progress' ? 'in progress' : view.state;
  const tags = Object.entries(view.tags).flatMap(([key, values]) => values.map((v) => (v === null ? key : `${key}:${v}`)));
  const files = view.files.map((f) => `${f.name} (${f.size} bytes${f.error ? `, failed: ${f.error}` : ''})`);
  return (
    `${view.documentId}: ${state}${view.error ? ` (${view.error})` : ''}; tags: ${tags.join(', ') || '-'}; ` +
    `files: ${files.join(', ') || '-'}; updated ${view.lastUpdate || '-'}`
  );
}

/** `list_documents` as text: one line per document, then how to get the next page. */
export function documentListText(view: ReturnType<typeof documentListView>): string {
  if (view.documents.length === 0) {
    return view.nextCursor === null
      ? `No documents in index ${view.index} match.`
      : `No matching documents on this page of index ${view.index}; more follow: call list_documents again with cursor "${view.nextCursor}".`;
  }
  const lines = [`${view.documents.length} document(s) in index ${view.index}:`, ...view.documents.map((d) => `- ${documentLine(d)}`)];
  if (view.nextCursor !== null) lines.push(`More follow: call list_documents again with cursor "${view.nextCursor}".`);
  return lines.join('\n');
}

function unique(values: Array<number | undefined>): number[] {
  return [...new Set(values.filter((v): v is number => v !== undefined))].sort((a, b) => a - b);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
