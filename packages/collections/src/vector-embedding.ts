import { type ITextEmbeddingGenerator, KmError } from '@km/core';
import { checkVectorValue, type ResolvedVectorProperty, throwIfAborted } from '@km/core/connector';

/** One vector to compute: the text of its `embed` source and where to put the result. */
export interface EmbeddingTask {
  readonly property: ResolvedVectorProperty;
  readonly text: string;
  readonly assign: (vector: Float32Array) => void;
}

/**
 * Embeds texts for vectors, in batches of the generator's `maxBatchSize` (one by default), and
 * checks each vector against its property (dimensions, finite, not all zeros for cosine).
 * Throws `not_configured` naming the vector when there is no generator.
 *
 * ```ts
 * await embedVectors(generator, tasks, 'document', signal);
 * ```
 */
export async function embedVectors(
  generator: ITextEmbeddingGenerator | undefined,
  tasks: readonly EmbeddingTask[],
  purpose: 'query' | 'document',
  signal?: AbortSignal,
): Promise<void> {
  if (tasks.length === 0) return;
  if (!generator) throw missingGenerator(tasks[0]!.property);
  const size = Math.max(1, Math.floor(generator.maxBatchSize ?? 1));
  for (let start = 0; start < tasks.length; start += size) {
    throwIfAborted(undefined, 'embedding', signal);
    const batch = tasks.slice(start, start + size);
    const vectors = await generator.generateEmbeddings(
      batch.map((t) => t.text),
      signal,
      { purpose },
    );
    if (vectors.length !== batch.length) {
      throw new KmError('upstream_error', `the embedding generator returned ${vectors.length} vectors for ${batch.length} texts`);
    }
    batch.forEach((task, i) => {
      const vector = vectors[i]!;
      if (vector.length !== task.property.dimensions) {
        throw new KmError(
          'vector_size_mismatch',
          `the embedding generator returned ${vector.length} dimensions for vector ${task.property.name}, which has ${task.property.dimensions}`,
        );
      }
      task.assign(checkVectorValue(task.property, vector, `the embedding of ${task.property.embed} for vector ${task.property.name}`));
    });
  }
}

/** The `not_configured` error of a vector that must be embedded without a generator. */
export function missingGenerator(property: ResolvedVectorProperty): KmError {
  return new KmError(
    'not_configured',
    `vector ${property.name} is embedded from ${property.embed}, but no embedding generator is set (on the definition, the collection or the store)`,
  );
}
