import { InvalidInputError } from '@km/core';

/**
 * Refuses a name Azure would refuse as a container (with `OutOfRangeInput` or `InvalidResourceName`
 * at the first request): 3 to 63 characters of lower-case letters, digits and hyphens, starting
 * and ending with a letter or digit, with no two hyphens in a row. Checked when the storage is
 * configured, so a bad name stops `km serve` at start with the setting's name, not at the first upload.
 */
export function checkContainerName(name: string, owner = 'AzureBlobsContentStorage'): string {
  const problem =
    name.length < 3 || name.length > 63
      ? `has ${name.length} characters; Azure allows 3 to 63`
      : !/^[a-z0-9-]+$/.test(name)
        ? 'may hold only lower-case letters, digits and hyphens'
        : !/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name)
          ? 'must start and end with a letter or digit'
          : name.includes('--')
            ? 'may not hold two hyphens in a row'
            : undefined;
  if (problem === undefined) return name;
  const setting = owner === 'AzureBlobsContentStorage' ? 'KM_AZURE_BLOBS_CONTAINER, option container' : 'option container';
  const message = `${owner}: the container name "${name}" (${setting}) ${problem}`;
  throw new InvalidInputError('invalid_argument', message, { connector: 'azureblobs' });
}
