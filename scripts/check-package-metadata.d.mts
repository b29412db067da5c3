// Types of check-package-metadata.mjs, for the tests that import it.
export const REPOSITORY_URL: string;
export const ISSUES_URL: string;
export function coveredByFiles(files: string[], path: string): boolean;
export function checkPackageMetadata(packageDir: string, options?: { folderPath?: string }): string[] | undefined;
export function checkAllPackages(root: string): { checked: string[]; problems: Record<string, string[]> };
