/** Content of a `.text_embedding` file: the vector of one partition and what made it. */
export interface EmbeddingFile {
  generator: string;
  vector_size: number;
  /** SHA-256 of the partition text the vector was computed from. */
  source_sha256: string;
  timestamp: string;
  vector: number[];
}

/** File name of a partition's embedding by a given generator. */
export function embeddingFileName(partitionName: string, generator: string): string {
  const slug = generator.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'default';
  return `${partitionName}.${slug}.text_embedding`;
}

/** Parses an embedding file; undefined when it is not one. */
export function parseEmbeddingFile(data: Buffer | string): EmbeddingFile | undefined {
  try {
    const parsed = JSON.parse(data.toString()) as Partial<EmbeddingFile>;
    if (typeof parsed.generator !== 'string' || !Array.isArray(parsed.vector) || typeof parsed.source_sha256 !== 'string') return undefined;
    return parsed as EmbeddingFile;
  } catch {
    return undefined;
  }
}
