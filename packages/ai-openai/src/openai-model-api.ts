import type { Logger } from '@km/core';
import { resolveRetryOptions, withConnectorRetries } from '@km/core/connector';
import type OpenAI from 'openai';
import { createOpenAIClient, type OpenAIConnectionOptions } from './connection.js';
import { CONNECTOR, toKmError } from './errors.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry.js';

/** The options every generator of this package takes to reach its endpoint. */
export interface OpenAIEndpointOptions {
  connection: OpenAIConnectionOptions;
  retry?: RetryOptions;
  logger?: Logger;
  /** An SDK client of your own (proxies, custom fetch); `connection` still names the provider. */
  client?: OpenAI;
}

/**
 * One generator's way to its endpoint: the SDK client (the caller's, or one built from
 * `connection`), the model name sent in requests, and the retry policy every request runs under.
 */
export class OpenAIModelApi {
  private readonly client: OpenAI;
  private readonly retry: Required<RetryOptions>;

  constructor(
    /** The model sent in requests: the deployment on Azure. */
    readonly requestModel: string,
    private readonly options: OpenAIEndpointOptions,
  ) {
    this.retry = resolveRetryOptions(options.retry, DEFAULT_RETRY);
    this.client = options.client ?? createOpenAIClient(options.connection);
  }

  /**
   * Sends one request with km's retries (core's `withConnectorRetries`); `what` names it in
   * errors and logs, `signal` stops it and its backoff. Every error leaves as a KmError.
   */
  send<T>(what: string, request: (client: OpenAI) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    return withConnectorRetries(() => request(this.client), {
      connector: CONNECTOR,
      what,
      retry: this.retry,
      toKmError: (e) => toKmError(e, what, signal),
      signal,
      logger: this.options.logger,
    });
  }
}
