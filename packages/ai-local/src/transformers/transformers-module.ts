/** The part of `@huggingface/transformers` this package uses (it is an optional peer). */
export interface TransformersModule {
  env: TransformersEnv;
  pipeline(task: 'feature-extraction', model: string, options: Record<string, unknown>): Promise<unknown>;
}

export interface TransformersEnv {
  allowRemoteModels: boolean;
  allowLocalModels: boolean;
  localModelPath: string;
  cacheDir: string | null;
}

/** The settings a load changes, to put them back afterwards. */
export function pickTransformersEnv(env: TransformersEnv): Partial<TransformersEnv> {
  const { allowRemoteModels, allowLocalModels, localModelPath, cacheDir } = env;
  return { allowRemoteModels, allowLocalModels, localModelPath, cacheDir };
}
