import { OpenAIEmbeddingGenerator, OpenAITextGenerator, type OpenAIConnectionOptions } from '@km/ai-openai';
import { UniversalSentenceEncoderGenerator } from '@km/ai-local';
import { describeEmbeddingGenerator, describeTextGenerator } from '@km/conformance';
import { HashingEmbeddingGenerator } from '@km/core';

describeEmbeddingGenerator('HashingEmbeddingGenerator', { create: () => new HashingEmbeddingGenerator(), dimensions: 384 });

describeEmbeddingGenerator('UniversalSentenceEncoderGenerator (offline model, worker threads)', {
  create: () => new UniversalSentenceEncoderGenerator({ workers: 2 }),
  dispose: (g) => g.close?.(),
  dimensions: 512,
});

// A hosted or self-hosted model, when one is given: KM_TEST_OPENAI_BASE_URL (an OpenAI-compatible
// server such as Ollama at http://127.0.0.1:11434/v1) or OPENAI_API_KEY (OpenAI itself).
const baseURL = process.env.KM_TEST_OPENAI_BASE_URL;
const apiKey = process.env.KM_TEST_OPENAI_API_KEY ?? process.env.OPENAI_API_KEY;
const connection: OpenAIConnectionOptions | undefined = baseURL
  ? { provider: 'compatible', baseURL, ...(apiKey ? { apiKey } : {}) }
  : apiKey
    ? { apiKey }
    : undefined;
const skip = connection ? false : 'needs KM_TEST_OPENAI_BASE_URL (an OpenAI-compatible server) or OPENAI_API_KEY';
if (skip) console.log(`[km] skipped OpenAI generators against a real model: ${skip}`);

describeEmbeddingGenerator('OpenAIEmbeddingGenerator (real model)', {
  skip,
  create: () =>
    new OpenAIEmbeddingGenerator({
      connection: connection!,
      model: process.env.KM_TEST_OPENAI_EMBEDDING_MODEL ?? 'text-embedding-3-small',
    }),
});
describeTextGenerator('OpenAITextGenerator (real model)', {
  skip,
  create: () => new OpenAITextGenerator({ connection: connection!, model: process.env.KM_TEST_OPENAI_CHAT_MODEL ?? 'gpt-4o-mini' }),
});
