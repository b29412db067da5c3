import { baseMimeType } from './mime-types.js';

/** Types that the decoders of `@km/decoders` read. */
function isDecodersPackageType(mimeType: string): boolean {
  return (
    mimeType === 'application/pdf' ||
    mimeType.startsWith('application/vnd.openxmlformats-officedocument.') ||
    mimeType.startsWith('image/')
  );
}

/**
 * Why a file of this type cannot be read, naming what to install: `@km/decoders` for PDF,
 * Office files and images, a custom `IContentDecoder` for anything else.
 */
export function missingDecoderReason(mimeType: string): string {
  const base = baseMimeType(mimeType);
  if (isDecodersPackageType(base)) {
    return `no decoder for ${base}: install @km/decoders and register its decoders (createDecoders() with KernelMemoryBuilder.withDecoder)`;
  }
  return `no decoder for ${base || 'this file type'}: km cannot read it; register an IContentDecoder for this type with KernelMemoryBuilder.withDecoder`;
}
