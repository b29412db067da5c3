import {
  CL100KTokenizer,
  InvalidInputError,
  KmError,
  type ITextGenerator,
  type ITextTokenizer,
  type TextGenerationOptions,
  type TokenUsage,
} from '@km/core';
import type { ChatRequest, ChatResponse } from 'ollama';
import { CONNECTOR, OllamaRequestError, toKmError, type RequestContext } from './errors.js';
import { OllamaEndpoint, type OllamaEndpointOptions } from './ollama-endpoint.js';
import { throwIfAborted } from './signals.js';

/** Options of {@link OllamaTextGenerator}. */
export interface OllamaTextGeneratorOptions extends OllamaEndpointOptions {
  /** A model pulled on the server, e.g. `llama3.2` or `qwen2.5:7b`. */
  model: string;
  /**
   * Context window, prompt plus answer, in tokens: km's `maxTokenTotal`, sent as
   * `options.num_ctx` so that the server keeps what km budgets (it replaces the model's own
   * `num_ctx`). @default 4096
   */
  contextLength?: number;
  /** @default an estimate: OpenAI's cl100k tokenizer (Ollama has no tokenize endpoint on every version) */
  tokenizer?: ITextTokenizer;
}

/** Context window used when none is given. */
export const DEFAULT_CONTEXT_LENGTH = 4096;

type StreamingChatRequest = ChatRequest & { stream: true };

/**
 * Chat from an Ollama server through its native `/api/chat` endpoint, streamed, on the official
 * `ollama` client. The request is retried (connection errors, 429, 5xx) until the first piece
 * of the answer arrives; a stream that breaks later fails with a transient error instead of
 * repeating text. One server hosts many models, so a call may name another one
 * (`supportsModelOverride`).
 *
 * ```ts
 * const llm = new OllamaTextGenerator({ model: 'llama3.2', contextLength: 8192 });
 * for await (const piece of llm.generate('Say hello', { maxTokens: 20 })) process.stdout.write(piece);
 * ```
 */
export class OllamaTextGenerator implements ITextGenerator {
  readonly maxTokenTotal: number;
  readonly modelName: string;
  readonly supportsModelOverride = true;
  readonly tokenizer: ITextTokenizer;
  private readonly endpoint: OllamaEndpoint;

  constructor(private readonly options: OllamaTextGeneratorOptions) {
    if (!options.model?.trim()) {
      throw new InvalidInputError('not_configured', 'an Ollama text model is required, e.g. llama3.2', { connector: CONNECTOR });
    }
    const context = options.contextLength;
    if (context !== undefined && (!Number.isInteger(context) || context <= 0)) {
      throw new InvalidInputError('invalid_argument', `contextLength must be a positive integer, got ${context}`, { connector: CONNECTOR });
    }
    this.maxTokenTotal = context ?? DEFAULT_CONTEXT_LENGTH;
    this.tokenizer = options.tokenizer ?? new CL100KTokenizer();
    this.modelName = `ollama/${options.model}`;
    this.endpoint = new OllamaEndpoint(options);
  }

  async *generate(prompt: string, options: TextGenerationOptions): AsyncIterable<string> {
    const { signal } = options;
    throwIfAborted(signal, 'chat');
    const model = options.modelName?.trim() || this.options.model;
    const context: RequestContext = { what: 'chat', host: this.endpoint.host, model, signal };
    const opened = await this.endpoint.open(
      'chat',
      model,
      async (client) => {
        const iterator = (await client.chat(this.request(model, prompt, options)))[Symbol.asyncIterator]();
        // Read up to the first piece of the answer inside the attempt, so that a failure before it is retried.
        const head: ChatResponse[] = [];
        for (let next = await this.next(iterator, context, 0); next; next = await this.next(iterator, context, 0)) {
          head.push(next);
          if (next.message?.content || next.done) break;
        }
        return { iterator, head };
      },
      signal,
    );
    let answer = '';
    let last: ChatResponse | undefined;
    try {
      for (const chunk of opened.value.head) {
        last = chunk;
        if (chunk.message?.content) {
          answer += chunk.message.content;
          yield chunk.message.content;
        }
      }
      while (!last?.done) {
        const chunk = await this.next(opened.value.iterator, context, answer.length);
        if (!chunk) break;
        last = chunk;
        if (chunk.message?.content) {
          answer += chunk.message.content;
          yield chunk.message.content;
        }
      }
    } finally {
      opened.close();
    }
    if (last?.done && options.onUsage) options.onUsage(this.usage(model, prompt, answer, last));
  }

  private request(model: string, prompt: string, options: TextGenerationOptions): StreamingChatRequest {
    return {
      model,
      messages: [{ role: 'user', content: prompt }],
      stream: true,
      ...(this.endpoint.keepAlive !== undefined ? { keep_alive: this.endpoint.keepAlive } : {}),
      options: {
        num_ctx: this.maxTokenTotal,
        num_predict: options.maxTokens ?? 300,
        temperature: options.temperature ?? 0,
        ...(options.nucleusSampling ? { top_p: options.nucleusSampling } : {}),
        ...(options.stopSequences?.length ? { stop: options.stopSequences } : {}),
      },
    };
  }

  /**
   * The next chunk of the stream, or undefined at its end. A failure becomes a KmError:
   * `aborted`; transient when the stream broke (dropped connection, or an end without the final
   * chunk); `upstream_error` for an error the server wrote into the stream.
   */
  private async next(iterator: AsyncIterator<ChatResponse>, context: RequestContext, answered: number): Promise<ChatResponse | undefined> {
    try {
      const next = await iterator.next();
      return next.done ? undefined : next.value;
    } catch (e) {
      const error = toKmError(e, context);
      if (error.code === 'aborted' || !(e instanceof Error)) throw error;
      const at = answered > 0 ? `after ${answered} characters of the answer` : 'before the answer began';
      if (error.transient || /did not receive done/i.test(e.message)) {
        throw new OllamaRequestError('transient', `chat: the answer stream from ${context.host} broke ${at} (${e.message})`, {
          transient: true,
          cause: e,
        });
      }
      throw new KmError('upstream_error', `chat: Ollama reported an error ${at}: ${e.message}`, { connector: CONNECTOR, cause: e });
    }
  }

  private usage(model: string, prompt: string, answer: string, final: ChatResponse): TokenUsage {
    return {
      timestamp: new Date().toISOString(),
      serviceType: 'Ollama',
      modelType: 'TextGeneration',
      modelName: `ollama/${model}`,
      tokenizerTokensIn: this.tokenizer.countTokens(prompt),
      tokenizerTokensOut: this.tokenizer.countTokens(answer),
      // Ollama leaves prompt_eval_count out when the whole prompt came from its cache.
      serviceTokensIn: final.prompt_eval_count ?? 0,
      serviceTokensOut: final.eval_count ?? 0,
    };
  }
}
