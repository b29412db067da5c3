import type { Citation, CitationPartition } from '@km/wire';

/** Where a passage is in its file: the page of a PDF, the section of other formats, else the partition. */
export function passageLocation(
  citation: Pick<Citation, 'sourceContentType'>,
  partition: Pick<CitationPartition, 'sectionNumber' | 'partitionNumber'>,
): string {
  if (partition.sectionNumber > 0)
    return `${citation.sourceContentType === 'application/pdf' ? 'page' : 'section'} ${partition.sectionNumber}`;
  return `passage ${partition.partitionNumber + 1}`;
}
