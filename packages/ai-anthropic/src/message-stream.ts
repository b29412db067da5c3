import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';

/**
 * What the events of one streamed message have told so far: its text comes back piece by
 * piece from {@link read}; the token usage (`message_start` gives the input tokens,
 * `message_delta` the cumulative output tokens), the stop reason and whether `message_stop`
 * arrived are kept.
 */
export class MessageStream {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  stopReason: string | undefined;
  /** `message_stop` arrived: the answer is complete. */
  stopped = false;

  /** Reads one event; returns the text it adds to the answer, if any. */
  read(event: RawMessageStreamEvent): string | undefined {
    switch (event.type) {
      case 'message_start': {
        const usage = event.message.usage;
        this.inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
        this.outputTokens = usage.output_tokens;
        return undefined;
      }
      case 'content_block_delta':
        return event.delta.type === 'text_delta' && event.delta.text ? event.delta.text : undefined;
      case 'message_delta': {
        const usage = event.usage;
        if (typeof usage?.output_tokens === 'number') this.outputTokens = usage.output_tokens;
        if (typeof usage?.input_tokens === 'number') {
          this.inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
        }
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        return undefined;
      }
      case 'message_stop':
        this.stopped = true;
        return undefined;
      default:
        return undefined;
    }
  }
}
