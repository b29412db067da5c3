/**
 * Names of the attributes on km's spans. km's own carry the `km.` prefix; model calls also carry
 * the names of OpenTelemetry's GenAI conventions (`gen_ai.*`), messaging spans those of its
 * messaging conventions (`messaging.*`).
 */
export const KmAttributes = {
  /** The document of a pipeline step or import. */
  documentId: 'km.document_id',
  /** The index (normalised name). */
  index: 'km.index',
  /** The pipeline step (`extract`, `partition`, `gen_embeddings`, `save_records`, …). */
  step: 'km.step',
  /** Attempt of a step, 1 for the first. */
  attempt: 'km.attempt',
  /** How a step ended: `success`, `transient` or `fatal`. */
  stepResult: 'km.step.result',
  /** The steps of an import, comma-separated. */
  steps: 'km.steps',
  /** The memory DB's name (its driver's, e.g. `simple-vector-db`, `postgres`). */
  memoryDb: 'km.memory_db',
  /** Records written or asked for. */
  records: 'km.records',
  /** Most results asked for. */
  limit: 'km.limit',
  /** `vector`, `lexical` or `hybrid`. */
  searchMode: 'km.search.mode',
  /** Results found (search) or relevant sources (ask). */
  results: 'km.results',
  /** Deliveries of a queue message so far, this one included. */
  queueAttempt: 'km.queue.attempt',
  /** What a queue's handler answered: `ok`, `transient` or `fatal`. */
  queueResult: 'km.queue.result',
  /** Why an embedding was asked for: `query` or `document`. */
  embeddingPurpose: 'km.embeddings.purpose',
  /** Texts embedded in one call. */
  embeddingTexts: 'km.embeddings.texts',
  /** Tokens sent to a model (the service's count when it reports one, else the tokenizer's). */
  tokensInput: 'km.tokens.input',
  /** Tokens the model generated (as above). */
  tokensOutput: 'km.tokens.output',
} as const;

/** Attribute names of OpenTelemetry's GenAI conventions used on model spans. */
export const GenAiAttributes = {
  operationName: 'gen_ai.operation.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
} as const;

/** Attribute names of OpenTelemetry's messaging conventions used on queue spans. */
export const MessagingAttributes = {
  system: 'messaging.system',
  destination: 'messaging.destination.name',
  operationType: 'messaging.operation.type',
} as const;
