import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The absolute path of the console's built static files (`index.html` and `assets/`), for a
 * server to serve at `/ui/`. The folder exists once the package is built (`vite build`).
 *
 * ```ts
 * import { consoleAssetsDirectory } from '@km/console';
 * console.log(consoleAssetsDirectory()); // …/node_modules/@km/console/dist/ui
 * ```
 */
export function consoleAssetsDirectory(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'ui');
}
