import type { ITextGenerator, ITextTokenizer, TextGenerationOptions, TokenUsage } from '@km/core';
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { modelIdentity } from './connection.js';
import { toKmError } from './errors.js';
import { chatModelInfo } from './model-catalog.js';
import { OpenAIModelApi, type OpenAIEndpointOptions } from './openai-model-api.js';
import { modelNamePrefix, serviceType } from './provider-names.js';
import { tokenizerForModel } from './tokenizers.js';

/** Options of {@link OpenAITextGenerator}. */
export interface OpenAITextGeneratorOptions extends OpenAIEndpointOptions {
  /** Model name, e.g. `gpt-4o-mini`. On Azure, the model behind the deployment; defaults to the deployment name. */
  model?: string;
  /** Context window, prompt plus answer. @default the model's, or 8192 for unknown models */
  maxTokenTotal?: number;
  /** A system message sent before each prompt. */
  systemPrompt?: string;
  /**
   * Reasoning models (o-series, GPT-5) take `max_completion_tokens` and refuse sampling
   * parameters. @default known from the model name
   */
  reasoningModel?: boolean;
  /** Ask the server for usage at the end of the stream (`stream_options.include_usage`). @default true */
  streamUsage?: boolean;
  tokenizer?: ITextTokenizer;
}

/**
 * Chat completions from OpenAI, Azure OpenAI or an OpenAI-compatible server, streamed token by
 * token. The request is retried (429, 5xx, connection errors) until the first token arrives;
 * a stream that breaks later fails with a transient error instead of repeating text.
 *
 * ```ts
 * const llm = new OpenAITextGenerator({ connection: { apiKey: process.env.OPENAI_API_KEY! }, model: 'gpt-4o-mini' });
 * for await (const piece of llm.generate('Say hello', { maxTokens: 20 })) process.stdout.write(piece);
 * ```
 */
export class OpenAITextGenerator implements ITextGenerator {
  readonly maxTokenTotal: number;
  readonly modelName: string;
  readonly tokenizer: ITextTokenizer;
  private readonly api: OpenAIModelApi;
  private readonly reasoning: boolean;

  constructor(private readonly options: OpenAITextGeneratorOptions) {
    const { requestModel, name } = modelIdentity(options.connection, options.model);
    const info = chatModelInfo(name);
    this.maxTokenTotal = options.maxTokenTotal ?? info?.contextWindow ?? 8192;
    this.reasoning = options.reasoningModel ?? info?.reasoning ?? false;
    this.tokenizer = options.tokenizer ?? tokenizerForModel(name);
    this.modelName = `${modelNamePrefix(options.connection)}/${name}`;
    this.api = new OpenAIModelApi(requestModel, options);
  }

  async *generate(prompt: string, options: TextGenerationOptions): AsyncIterable<string> {
    const { signal } = options;
    signal?.throwIfAborted();
    const params = this.request(prompt, options);
    const stream = await this.api.send('chat completion', (client) => client.chat.completions.create(params, { signal }), signal);
    let answer = '';
    let usage: OpenAI.CompletionUsage | undefined;
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const piece = chunk.choices?.[0]?.delta?.content;
        if (piece) {
          answer += piece;
          yield piece;
        }
      }
    } catch (e) {
      throw toKmError(e, 'chat completion stream', signal);
    }
    if (usage && options.onUsage) options.onUsage(this.usage(prompt, answer, usage));
  }

  private request(prompt: string, options: TextGenerationOptions): ChatCompletionCreateParamsStreaming {
    const messages: ChatCompletionCreateParamsStreaming['messages'] = [];
    if (this.options.systemPrompt) messages.push({ role: this.reasoning ? 'developer' : 'system', content: this.options.systemPrompt });
    messages.push({ role: 'user', content: prompt });
    const maxTokens = options.maxTokens ?? 300;
    return {
      model: this.api.requestModel,
      messages,
      stream: true,
      ...(this.options.streamUsage === false ? {} : { stream_options: { include_usage: true } }),
      ...(this.reasoning
        ? { max_completion_tokens: maxTokens }
        : {
            max_tokens: maxTokens,
            temperature: options.temperature ?? 0,
            ...(options.nucleusSampling ? { top_p: options.nucleusSampling } : {}),
          }),
      ...(options.stopSequences?.length ? { stop: options.stopSequences } : {}),
    };
  }

  private usage(prompt: string, answer: string, usage: OpenAI.CompletionUsage): TokenUsage {
    return {
      timestamp: new Date().toISOString(),
      serviceType: serviceType(this.options.connection),
      modelType: 'TextGeneration',
      modelName: this.modelName,
      tokenizerTokensIn: this.tokenizer.countTokens(prompt),
      tokenizerTokensOut: this.tokenizer.countTokens(answer),
      serviceTokensIn: usage.prompt_tokens,
      serviceTokensOut: usage.completion_tokens,
      ...(usage.completion_tokens_details?.reasoning_tokens !== undefined
        ? { serviceReasoningTokens: usage.completion_tokens_details.reasoning_tokens }
        : {}),
    };
  }
}
