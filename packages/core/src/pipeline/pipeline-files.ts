import { createHash } from 'node:crypto';
import type { ArtifactType, DataPipeline, GeneratedFileDetails, UploadedFileDetails } from '../models/data-pipeline.js';
import type { TagCollection } from '../models/tag-collection.js';
import type { PipelineContext } from './pipeline-context.js';

/** A stable 32-hex id derived from the parts (the same file gets the same id in every execution). */
export function stableId(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);
}

/** SHA-256 hex of a text. */
export function contentHash(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Generated files of an upload with one of the given artifact types, in partition order. */
export function generatedFilesOf(file: UploadedFileDetails, ...types: ArtifactType[]): GeneratedFileDetails[] {
  return Object.values(file.generated_files)
    .filter((g) => types.includes(g.artifact_type))
    .sort((a, b) => a.partition_number - b.partition_number || a.name.localeCompare(b.name));
}

/** Options of {@link writeGeneratedFile}. */
export interface GeneratedFileSpec {
  name: string;
  content: string;
  mimeType: string;
  artifactType: ArtifactType;
  partitionNumber?: number;
  sectionNumber?: number;
  sourcePartitionId?: string;
  tags?: TagCollection;
}

/** Writes a file derived from `parent` and records it in the parent's `generated_files`. */
export async function writeGeneratedFile(
  context: PipelineContext,
  pipeline: DataPipeline,
  parent: UploadedFileDetails,
  spec: GeneratedFileSpec,
): Promise<GeneratedFileDetails> {
  const size = await context.contentStorage.writeFile(pipeline.index, pipeline.document_id, spec.name, spec.content);
  const details: GeneratedFileDetails = {
    id: stableId(pipeline.document_id, parent.id, spec.name),
    name: spec.name,
    size,
    mime_type: spec.mimeType,
    artifact_type: spec.artifactType,
    partition_number: spec.partitionNumber ?? 0,
    section_number: spec.sectionNumber ?? 0,
    tags: spec.tags ?? {},
    processed_by: [],
    log: [],
    parent_id: parent.id,
    source_partition_id: spec.sourcePartitionId ?? '',
    content_sha256: contentHash(spec.content),
  };
  parent.generated_files[spec.name] = details;
  return details;
}

/** Reads a document's file as UTF-8 text. */
export async function readTextFile(context: PipelineContext, pipeline: DataPipeline, name: string): Promise<string> {
  return (await context.contentStorage.readFile(pipeline.index, pipeline.document_id, name)).toString('utf8');
}

/** Names of every file a pipeline wrote (uploads, generated files). */
export function fileNamesOf(pipeline: DataPipeline): string[] {
  return pipeline.files.flatMap((f) => [f.name, ...Object.keys(f.generated_files)]);
}
