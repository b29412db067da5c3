import { describeEmbeddingGenerator, describeTextGenerator } from '@km/conformance';
import { HashingEmbeddingGenerator } from '@km/core';

describeEmbeddingGenerator('HashingEmbeddingGenerator', { create: () => new HashingEmbeddingGenerator(), dimensions: 384 });
describeTextGenerator('text generators', {
  create: () => {
    throw new Error('unreachable');
  },
  skip: 'no text generator in this repo yet; @km/ai-openai brings one',
});
