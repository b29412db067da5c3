import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEmbeddingGenerator } from '@km/conformance';
import { l2norm } from '@km/core/connector';
import { afterAll, describe, expect, it } from 'vitest';
import { TransformersEmbeddingGenerator } from '../src/index.js';
import { TINY_MODEL_DIMENSIONS, writeTinyOnnxModel } from './fixtures/tiny-onnx-model.js';

// A real ONNX model file, written by the test (the machines cannot download one).
const root = mkdtempSync(join(tmpdir(), 'km-onnx-'));
const modelPath = writeTinyOnnxModel(join(root, 'tiny-bert'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describeEmbeddingGenerator('transformers.js, local ONNX model', {
  create: async () => {
    const g = new TransformersEmbeddingGenerator({ modelPath, threads: 1 });
    await g.ready();
    return g;
  },
  dispose: (g) => (g as TransformersEmbeddingGenerator).close(),
  dimensions: TINY_MODEL_DIMENSIONS,
});

describe('TransformersEmbeddingGenerator', () => {
  it('loads from the folder, learns size and limit from the model, and normalises', async () => {
    const g = new TransformersEmbeddingGenerator({ modelPath });
    await g.ready();
    expect(g.modelName).toBe('local/tiny-bert');
    expect(g.dimensions).toBe(TINY_MODEL_DIMENSIONS);
    expect(g.maxTokens).toBe(128);
    expect(g.tokenizer.countTokens('the cat sat')).toBe(3);
    const [v] = await g.generateEmbeddings(['the cat sat on the mat']);
    expect(l2norm(v!)).toBeCloseTo(1, 5);
    await g.close();
  });

  it('cls pooling gives a different vector than mean pooling', async () => {
    const mean = new TransformersEmbeddingGenerator({ modelPath });
    const cls = new TransformersEmbeddingGenerator({ modelPath, pooling: 'cls' });
    const [a] = await mean.generateEmbeddings(['the cat sat on the mat']);
    const [b] = await cls.generateEmbeddings(['the cat sat on the mat']);
    expect(Array.from(a!)).not.toEqual(Array.from(b!));
  });

  it('a folder without a model fails with not_configured naming the folder, and downloads nothing', async () => {
    const missing = join(root, 'no-such-model');
    const g = new TransformersEmbeddingGenerator({ modelPath: missing });
    const error = await g.generateEmbeddings(['x']).catch((e) => e);
    expect(error).toMatchObject({ code: 'not_configured' });
    expect(error.message).toContain(missing);
  });

  it('a model id without a folder needs remote loading switched on', () => {
    expect(() => new TransformersEmbeddingGenerator({ modelId: 'Xenova/all-MiniLM-L6-v2' })).toThrow(/allowRemoteModels/);
    expect(() => new TransformersEmbeddingGenerator({})).toThrow(/modelPath/);
  });

  it('without @huggingface/transformers installed, the error says what to install', async () => {
    const g = new TransformersEmbeddingGenerator({ modelPath }, () =>
      Promise.reject(new Error("Cannot find package '@huggingface/transformers'")),
    );
    await expect(g.ready()).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringMatching(/install it next to @km\/ai-local/),
    });
  });
});
