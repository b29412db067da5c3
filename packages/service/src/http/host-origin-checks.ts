import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problem } from './problem-details.js';

/** What {@link registerHostOriginChecks} allows beyond loopback. */
export interface HostOriginOptions {
  /**
   * Host names (or `name:port`) the service answers besides the loopback names, `'*'` for any.
   * The service's own bind address (`host`, unless a wildcard such as 0.0.0.0) is allowed too.
   */
  allowedHosts: readonly string[];
  /** Browser origins (`https://app.example.com`) that may call the API besides the service's own, `'*'` for any; they get CORS headers. */
  allowedOrigins: readonly string[];
  /** The address the service listens on. */
  bindHost?: string;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WILDCARD_BINDS = new Set(['', '0.0.0.0', '::', '[::]']);
const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const EXPOSE_HEADERS = 'x-request-id, location, retry-after, content-disposition';

/** True for `localhost`, `*.localhost`, `127.0.0.1` and `[::1]` (also written `::1`). */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === '127.0.0.1' || name === '[::1]' || name === '::1';
}

const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(:\d{1,5})?$/i;

/** An IP address: a request for one cannot come from DNS rebinding, which needs the attacker's name in `Host`. */
function isIpAddress(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), lower case, or undefined when malformed. */
function hostnameOf(host: string): string | undefined {
  if (!HOST_HEADER.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Who may use the service from where, before the access keys are checked:
 *
 * - **Host** (DNS rebinding): a request is answered only when its `Host` is a loopback name,
 *   an IP address (a load balancer's probe; DNS rebinding needs a name), the bind address, or in
 *   `allowedHosts` (KM_ALLOWED_HOSTS); else 403.
 * - **Origin** (cross-site requests from web pages): a `POST`, `PUT`, `PATCH` or `DELETE` that
 *   carries an `Origin` other than the service's own or one in `allowedOrigins`
 *   (KM_ALLOWED_ORIGINS) is refused with 403, and so is a request a browser marks
 *   `Sec-Fetch-Site: cross-site` from an origin not listed (except a top-level navigation and
 *   the public routes). Requests without `Origin` and `Sec-Fetch-*` (curl, KM's .NET client,
 *   the km client and CLI) are not affected.
 * - **CORS**: an origin in `allowedOrigins` gets its preflight (`OPTIONS`) answered and the
 *   `Access-Control-Allow-*` headers on every response.
 */
export function registerHostOriginChecks(app: FastifyInstance, options: HostOriginOptions): void {
  const hosts = new Set(options.allowedHosts.map((h) => h.trim().toLowerCase()).filter(Boolean));
  const anyHost = hosts.has('*');
  const bind = (options.bindHost ?? '').toLowerCase();
  if (!WILDCARD_BINDS.has(bind)) hosts.add(bind.includes(':') && !bind.startsWith('[') ? `[${bind}]` : bind);
  const origins = new Set(options.allowedOrigins.map((o) => o.trim().replace(/\/+$/, '').toLowerCase()).filter(Boolean));
  const anyOrigin = origins.has('*');

  const hostAllowed = (host: string | undefined): boolean => {
    // HTTP/1.0 without a Host: no browser sends that, and DNS rebinding needs the attacker's name in it.
    if (host === undefined || host === '' || anyHost) return true;
    const hostname = hostnameOf(host);
    if (hostname === undefined) return false;
    return isLoopbackName(hostname) || isIpAddress(hostname) || hosts.has(hostname) || hosts.has(host.toLowerCase());
  };
  /** An origin configured to call the API (and so to get CORS headers). */
  const listed = (origin: string): boolean => anyOrigin || origins.has(origin.toLowerCase());
  /** The request's origin is the service's own: same scheme-less host and port as the (checked) Host. */
  const ownOrigin = (origin: string, host: string | undefined): boolean => {
    if (!host) return false;
    try {
      const url = new URL(origin);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === new URL(`http://${host}`).host;
    } catch {
      return false;
    }
  };
  const refuse = (request: FastifyRequest, reply: FastifyReply, detail: string) =>
    reply
      .code(403)
      .type('application/problem+json')
      .send(problem(403, detail, { code: 'forbidden', requestId: request.id }));

  app.addHook('onRequest', async (request, reply) => {
    const host = request.headers.host;
    if (!hostAllowed(host)) {
      return refuse(
        request,
        reply,
        `requests for host ${JSON.stringify(host)} are not served: add it to KM_ALLOWED_HOSTS (allowedHosts) when the service is reached under that name`,
      );
    }
    const origin = request.headers.origin;
    // A page of another site reading data through a tag or fetch (not the user following a link).
    const crossSite = request.headers['sec-fetch-site'] === 'cross-site' && request.headers['sec-fetch-mode'] !== 'navigate';
    if (origin === undefined) {
      if (crossSite && !request.routeOptions.config.public) {
        return refuse(request, reply, 'cross-site requests are not allowed: add the calling origin to KM_ALLOWED_ORIGINS (allowedOrigins)');
      }
      return;
    }
    const cors = listed(origin);
    if (cors)
      reply.header('access-control-allow-origin', origin).header('vary', 'Origin').header('access-control-expose-headers', EXPOSE_HEADERS);
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (preflight) {
      if (!cors)
        return refuse(request, reply, `requests from origin ${origin} are not allowed: add it to KM_ALLOWED_ORIGINS (allowedOrigins)`);
      const asked = request.headers['access-control-request-headers'];
      return reply
        .code(204)
        .header('access-control-allow-methods', ALLOW_METHODS)
        .header('access-control-allow-headers', typeof asked === 'string' ? asked : '')
        .header('access-control-max-age', '600')
        .send();
    }
    if (cors || ownOrigin(origin, host)) return;
    if (STATE_CHANGING.has(request.method) || crossSite) {
      return refuse(request, reply, `requests from origin ${origin} are not allowed: add it to KM_ALLOWED_ORIGINS (allowedOrigins)`);
    }
  });
}
