import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { consoleAssetsDirectory } from '@km/console';
import { HttpProblem } from '../http/problem-details.js';

/** Options of {@link registerConsoleRoutes}. */
export interface ConsoleRouteOptions {
  /** The header the page sends the access key in (the service's `auth.header`). @default 'Authorization' */
  authHeader?: string;
  /** The folder of the built console. @default consoleAssetsDirectory() of `@km/console` */
  assetsDirectory?: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The page talks only to this origin: no CDN, no inline script, not framed. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The web console at `/ui/` (`/ui` redirects there): its static files, `index.html` for any
 * path without an extension, and `/ui/settings.json` (the access-key header name). Public
 * routes: the page loads without a key, while the API calls it makes still need one.
 */
export function registerConsoleRoutes(app: FastifyInstance, options: ConsoleRouteOptions = {}): void {
  const settings = { authHeader: options.authHeader ?? 'Authorization' };
  let root: Promise<string> | undefined;
  // Resolved once (symbolic links included); a missing build is reported per request, not at start.
  const assets = () => (root ??= realpath(resolve(options.assetsDirectory ?? consoleAssetsDirectory())));
  const publicRoute = { config: { public: true } };

  app.get('/ui', publicRoute, async (request, reply) => {
    const query = request.url.indexOf('?');
    return reply.redirect(
      `${request.url.slice(0, query < 0 ? request.url.length : query)}/${query < 0 ? '' : request.url.slice(query)}`,
      308,
    );
  });
  // Browsers ask for /favicon.ico on any page of the service (the console's own page links the SVG).
  app.get('/favicon.ico', publicRoute, async (_request, reply) => reply.redirect('ui/favicon.svg', 308));
  app.get('/ui/settings.json', publicRoute, async (_request, reply) => reply.header('cache-control', 'no-store').send(settings));
  app.get<{ Params: { '*': string } }>('/ui/*', publicRoute, async (request, reply) => {
    let directory: string;
    try {
      directory = await assets();
    } catch {
      root = undefined;
      throw new HttpProblem(503, 'the web console is not built: run `pnpm --filter @km/console build`', 'console_not_built');
    }
    const relative = checkPath(request.params['*'] ?? '');
    const wantsPage = relative === '' || extname(relative) === '';
    const file = await insideFile(directory, wantsPage ? 'index.html' : relative);
    if (!file) return reply.callNotFound();
    return send(reply, file, wantsPage || file.endsWith(`${sep}index.html`));
  });
}

/** The path under `/ui/`, as the router decoded it; a NUL byte is a 400, backslashes count as slashes. */
function checkPath(decoded: string): string {
  if (decoded.includes('\0')) throw new HttpProblem(400, 'the path holds a NUL byte', 'invalid_path');
  return decoded.replaceAll('\\', '/');
}

/** The real path of a regular file inside `directory`, or undefined (outside it, missing, a folder). */
async function insideFile(directory: string, relative: string): Promise<string | undefined> {
  const candidate = resolve(directory, `.${sep}${relative}`);
  if (!candidate.startsWith(directory + sep)) return undefined;
  try {
    const real = await realpath(candidate);
    if (!real.startsWith(directory + sep)) return undefined;
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

async function send(reply: FastifyReply, file: string, page: boolean): Promise<FastifyReply> {
  const body = await readFile(file);
  reply
    .type(CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream')
    .header('x-content-type-options', 'nosniff')
    // Built assets have content hashes in their names; the page itself is checked every time.
    .header('cache-control', page || !file.includes(`${sep}assets${sep}`) ? 'no-cache' : 'public, max-age=31536000, immutable');
  if (page) reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('referrer-policy', 'no-referrer');
  return reply.send(body);
}
