import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import {
  InvalidInputError,
  KmError,
  type ITextGenerator,
  type ITextTokenizer,
  type Logger,
  type TextGenerationOptions,
  type TokenUsage,
} from '@km/core';
import { resolveRetryOptions, withConnectorRetries } from '@km/core/connector';
import { ClaudeTokenEstimator } from './claude-tokenizer.js';
import { AnthropicRequestError, CONNECTOR, toKmError } from './errors.js';
import { MessageStream } from './message-stream.js';
import { claudeModelInfo, DEFAULT_MODEL, UNKNOWN_MODEL_CONTEXT_WINDOW } from './model-catalog.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry.js';

/** Options of {@link AnthropicTextGenerator}. */
export interface AnthropicTextGeneratorOptions {
  /** API key. @default the SDK's: `ANTHROPIC_API_KEY` */
  apiKey?: string | undefined;
  /** @default `https://api.anthropic.com` (or `ANTHROPIC_BASE_URL`) */
  baseURL?: string | undefined;
  /** Claude model id, e.g. `claude-sonnet-4-6`, `claude-haiku-4-5`. @default 'claude-sonnet-4-6' */
  model?: string;
  /**
   * Context window: prompt plus answer, in tokens. @default the model's (200000 for Claude 3
   * and later); 200000 for a model km does not know, with a warning
   */
  maxTokenTotal?: number;
  /** A system prompt sent with each request (the Messages API's `system`). */
  system?: string;
  /**
   * Send `temperature` and `top_p` when a call sets them. Anthropic deprecated both for models
   * released after Claude Opus 4.6 (they answer 400), and SDK 1.x no longer types them.
   * @default true for Claude 3 to 4.6, false for later and unknown models
   */
  sampling?: boolean;
  /** km's retries before the first token (the SDK's own are off). @default { maxRetries: 5, initialDelayMs: 500, maxDelayMs: 60000 } */
  retry?: RetryOptions;
  /** Longest wait, in ms, for the response headers of one attempt. @default the SDK's, 600000 */
  timeoutMs?: number;
  /** Told about retries and unknown models. */
  logger?: Logger;
  /** An SDK client of your own (proxies, custom fetch); `apiKey`, `baseURL` and `timeoutMs` are then not used. */
  client?: Anthropic;
  /** @default a {@link ClaudeTokenEstimator} (o200k × 1.2: Claude's tokenizer is not public) */
  tokenizer?: ITextTokenizer;
}

const WHAT = 'messages stream';

/** The request km sends: SDK 1.x no longer types the sampling parameters older models take. */
type StreamRequest = MessageCreateParamsStreaming & { temperature?: number; top_p?: number };

/**
 * Claude models through Anthropic's Messages API, streamed token by token. Retries (429, 529
 * overloaded, 5xx, connection errors, honouring `retry-after`) happen only until the first
 * token arrives; a stream that breaks later fails with a transient error instead of repeating
 * text. One key serves many models, so `modelName` of a call may switch the model.
 *
 * ```ts
 * const llm = new AnthropicTextGenerator({ apiKey: process.env.ANTHROPIC_API_KEY!, model: 'claude-haiku-4-5' });
 * for await (const piece of llm.generate('Say hello', { maxTokens: 20 })) process.stdout.write(piece);
 * ```
 */
export class AnthropicTextGenerator implements ITextGenerator {
  readonly maxTokenTotal: number;
  /** `anthropic/<model id>`. */
  readonly modelName: string;
  readonly supportsModelOverride = true;
  readonly tokenizer: ITextTokenizer;
  /** The model id sent when a call names none. */
  readonly model: string;
  private readonly client: Anthropic;
  private readonly retry: Required<RetryOptions>;
  private readonly sampling: boolean | undefined;

  constructor(private readonly options: AnthropicTextGeneratorOptions = {}) {
    this.model = stripPrefix(options.model ?? DEFAULT_MODEL);
    if (!this.model) throw invalid('model must be a non-empty Claude model id');
    const known = claudeModelInfo(this.model);
    if (options.maxTokenTotal !== undefined && !(Number.isInteger(options.maxTokenTotal) && options.maxTokenTotal > 0)) {
      throw invalid(`maxTokenTotal must be a positive integer, got ${String(options.maxTokenTotal)}`);
    }
    if (options.maxTokenTotal === undefined && known?.contextWindow === undefined) {
      options.logger?.warn(
        `anthropic: unknown model "${this.model}", assuming a ${UNKNOWN_MODEL_CONTEXT_WINDOW}-token context window (set maxTokenTotal)`,
      );
    }
    this.maxTokenTotal = options.maxTokenTotal ?? known?.contextWindow ?? UNKNOWN_MODEL_CONTEXT_WINDOW;
    this.modelName = `${CONNECTOR}/${this.model}`;
    this.tokenizer = options.tokenizer ?? new ClaudeTokenEstimator();
    this.sampling = options.sampling;
    this.retry = resolveRetryOptions(options.retry, DEFAULT_RETRY);
    this.client =
      options.client ??
      new Anthropic({
        ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
        ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
        ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
        maxRetries: 0,
      });
  }

  async *generate(prompt: string, options: TextGenerationOptions = {}): AsyncIterable<string> {
    const { signal } = options;
    if (signal?.aborted) throw new KmError('aborted', `${WHAT}: aborted`, { connector: CONNECTOR, cause: signal.reason });
    const params = this.request(prompt, options);
    const context = { signal, model: params.model };

    // Until the first piece of text, any transient failure is retried: nothing was yielded yet.
    const opened = await withConnectorRetries(
      async () => {
        const stream = await this.client.messages.create(params, { signal, maxRetries: 0 });
        const events = stream[Symbol.asyncIterator]();
        const message = new MessageStream();
        try {
          for (let next = await events.next(); !next.done; next = await events.next()) {
            const text = message.read(next.value);
            if (text) return { stream, events, message, first: text };
          }
          checkComplete(message, signal);
          return { stream, events, message, first: undefined };
        } catch (e) {
          stream.controller.abort();
          throw toKmError(e, WHAT, { ...context, streaming: true });
        }
      },
      {
        connector: CONNECTOR,
        what: WHAT,
        retry: this.retry,
        toKmError: (e) => toKmError(e, WHAT, context),
        signal,
        logger: this.options.logger,
      },
    );

    // After it, a failure ends the generation: retrying would repeat text.
    const { stream, events, message, first } = opened;
    let answer = '';
    try {
      if (first !== undefined) {
        answer += first;
        yield first;
        for (let next = await events.next(); !next.done; next = await events.next()) {
          const text = message.read(next.value as RawMessageStreamEvent);
          if (text) {
            answer += text;
            yield text;
          }
        }
        checkComplete(message, signal);
      }
    } catch (e) {
      throw toKmError(e, WHAT, { ...context, streaming: true });
    } finally {
      if (!message.stopped) stream.controller.abort();
    }
    options.onUsage?.(this.usage(params.model, prompt, answer, message));
  }

  private request(prompt: string, options: TextGenerationOptions): StreamRequest {
    if (typeof prompt !== 'string' || prompt.trim() === '') throw invalid('the prompt must be a non-empty string');
    const maxTokens = options.maxTokens ?? 300;
    if (!Number.isInteger(maxTokens) || maxTokens < 1) throw invalid(`maxTokens must be a positive integer, got ${String(maxTokens)}`);
    const model = options.modelName !== undefined ? stripPrefix(options.modelName) : this.model;
    if (!model) throw invalid('modelName must be a non-empty Claude model id');
    // Anthropic advises setting temperature or top_p, not both, and recent models refuse both.
    // km always passes a temperature (0 by default) and top_p only when asked: top_p then wins.
    // Models released after Opus 4.6 refuse either, so they get neither.
    const sampling = this.sampling ?? claudeModelInfo(model)?.sampling ?? false;
    const topP = options.nucleusSampling ? checkUnit('nucleusSampling', options.nucleusSampling) : undefined;
    const temperature = options.temperature !== undefined ? checkUnit('temperature', options.temperature) : undefined;
    const sent: Pick<StreamRequest, 'temperature' | 'top_p'> = !sampling
      ? {}
      : topP !== undefined
        ? { top_p: topP }
        : temperature !== undefined
          ? { temperature }
          : {};
    const stops = options.stopSequences?.filter((s) => s !== '') ?? [];
    return {
      model,
      max_tokens: maxTokens,
      messages: [{ role: 'user', content: prompt }],
      stream: true,
      ...(this.options.system ? { system: this.options.system } : {}),
      ...sent,
      ...(stops.length ? { stop_sequences: stops } : {}),
    };
  }

  private usage(model: string, prompt: string, answer: string, message: MessageStream): TokenUsage {
    return {
      timestamp: new Date().toISOString(),
      serviceType: 'Anthropic',
      modelType: 'TextGeneration',
      modelName: `${CONNECTOR}/${model}`,
      tokenizerTokensIn: this.tokenizer.countTokens(this.options.system ? `${this.options.system}\n${prompt}` : prompt),
      tokenizerTokensOut: this.tokenizer.countTokens(answer),
      ...(message.inputTokens !== undefined ? { serviceTokensIn: message.inputTokens } : {}),
      ...(message.outputTokens !== undefined ? { serviceTokensOut: message.outputTokens } : {}),
    };
  }
}

/** A stream that ended without `message_stop` was cut (or aborted, which SDK streams end quietly on). */
function checkComplete(message: MessageStream, signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new KmError('aborted', `${WHAT}: aborted`, { connector: CONNECTOR, cause: signal.reason });
  if (!message.stopped) {
    throw new AnthropicRequestError('transient', `${WHAT}: the stream ended before message_stop`, { transient: true });
  }
}

function stripPrefix(model: string): string {
  return model.startsWith(`${CONNECTOR}/`) ? model.slice(CONNECTOR.length + 1) : model;
}

function checkUnit(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw invalid(`${name} must be between 0 and 1 for Claude models, got ${String(value)}`);
  }
  return value;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', message, { connector: CONNECTOR });
}
