import { type Attributes, type Span, SpanStatusCode } from '@opentelemetry/api';
import type { StepOutcome } from '../contracts/pipeline-step-handler.js';
import { KmAttributes } from './span-attributes.js';

/** Attributes of a `km.pipeline.import` span. */
export function importAttributes(index: string, documentId: string, steps: readonly string[]): Attributes {
  return { [KmAttributes.index]: index, [KmAttributes.documentId]: documentId, [KmAttributes.steps]: steps.join(',') };
}

/** Attributes of a `km.pipeline.step <step>` span. */
export function stepAttributes(step: string, pipeline: { index: string; document_id: string }, attempt: number): Attributes {
  return {
    [KmAttributes.step]: step,
    [KmAttributes.index]: pipeline.index,
    [KmAttributes.documentId]: pipeline.document_id,
    [KmAttributes.attempt]: attempt,
  };
}

/** Adds how a step ended to its span: `km.step.result`, and the status `ERROR` unless it succeeded. */
export function recordStepOutcome(span: Span, outcome: Pick<StepOutcome, 'result' | 'error'>): void {
  span.setAttribute(KmAttributes.stepResult, outcome.result);
  if (outcome.result !== 'success') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? outcome.result });
}
