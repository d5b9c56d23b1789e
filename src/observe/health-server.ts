// What an operator and a process manager ask a running process: `/metrics` (Prometheus text),
// `/healthz` (the process runs its event loop) and `/readyz` (it can do its work: each readiness
// check answers within its deadline). One listener of its own (METRICS_PORT), shared by the bot and
// the stats service; the service also answers `/healthz` and `/readyz` on its interface port.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

import { WarningThrottle } from '../lookup/warning-throttle.js';
import { withTimeout } from '../lookup/within.js';
import { guardConnections } from './connection-guard.js';
import { listenOn } from './listen.js';

/**
 * One thing the process needs to do its work (the gateway, a store). `check` resolves when it is
 * ready and rejects (or throws) with a short reason when not; it is given `deadlineMs` to answer.
 */
export interface ReadinessCheck {
  name: string;
  check: () => unknown;
}

/** How long each readiness check may take before it counts as not ready, unless configured. */
export const READINESS_DEADLINE_MS = 1_000;

export interface HealthOptions {
  /**
   * The checks `/readyz` runs, all at once. A list the caller may add to after start (a listener
   * that comes up later registers its own check here).
   */
  readiness: ReadinessCheck[];
  /** Deadline of each readiness check. */
  deadlineMs?: number;
  /** Served at `/metrics` when given. */
  registry?: Registry;
  /**
   * Where the reasons of a failed check go (once a minute at most): `/readyz` names the checks that
   * failed, never why. A driver's error carries hosts and addresses, and probes need no key.
   */
  logger?: Logger | undefined;
}

const notReadyWarnings = new WeakMap<HealthOptions, WarningThrottle>();

/** Why a check is not ready, short and free of anything secret: one line, clipped. */
function reasonOf(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return (message.split('\n')[0] ?? '').slice(0, 160) || 'not ready';
}

/** Runs every readiness check within the deadline; the failed ones with their reasons. */
export async function readiness(checks: readonly ReadinessCheck[], deadlineMs = READINESS_DEADLINE_MS): Promise<{ check: string; reason: string }[]> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await withTimeout(Promise.resolve().then(c.check), deadlineMs, c.name);
        return undefined;
      } catch (e) {
        return { check: c.name, reason: reasonOf(e) };
      }
    }),
  );
  return results.filter((r) => r !== undefined);
}

function send(req: IncomingMessage, res: ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The paths this module answers; anything else is the caller's. */
export const HEALTH_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

/**
 * Answers `/healthz`, `/readyz` and (with a registry) `/metrics`; returns false for any other path
 * so that a server with routes of its own can use it first.
 */
export function handleHealth(options: HealthOptions, req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/healthz' && path !== '/readyz' && !(path === '/metrics' && options.registry)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    send(req, res, 405, JSON.stringify({ status: 'method not allowed' }));
    return true;
  }
  // Answering at all proves the event loop turns: that is what liveness means here.
  if (path === '/healthz') {
    send(req, res, 200, JSON.stringify({ status: 'ok' }));
    return true;
  }
  const answer = async () => {
    if (path === '/readyz') {
      const failed = await readiness(options.readiness, options.deadlineMs);
      if (failed.length > 0 && options.logger) {
        const throttle = notReadyWarnings.get(options) ?? new WarningThrottle();
        notReadyWarnings.set(options, throttle);
        const alikeLeftOut = throttle.take();
        if (alikeLeftOut !== undefined) options.logger.warn({ failed, alikeLeftOut }, 'not ready');
      }
      send(
        req,
        res,
        failed.length === 0 ? 200 : 503,
        JSON.stringify(failed.length === 0 ? { status: 'ready' } : { status: 'not ready', failed: failed.map((f) => ({ check: f.check })) }),
      );
      return;
    }
    const registry = options.registry as Registry;
    send(req, res, 200, await registry.metrics(), registry.contentType);
  };
  answer().catch((e: unknown) => {
    options.logger?.error({ err: reasonOf(e), path }, 'health answer failed');
    if (!res.headersSent) send(req, res, 500, JSON.stringify({ status: 'failed' }));
  });
  return true;
}

export interface HealthServer {
  /** `http://host:port` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the listener on `host:port` (port 0 picks a free one). Loopback by default: metrics name
 * the bot's traffic and failures, which are nobody else's business unless the operator says so.
 */
export async function startHealthServer(options: HealthOptions & { port: number; host?: string }): Promise<HealthServer> {
  const server = createServer({ keepAlive: true, headersTimeout: 5_000, requestTimeout: 10_000, connectionsCheckingInterval: 1_000 }, (req, res) => {
    if (!handleHealth(options, req, res))
      send(req, res, 404, JSON.stringify({ status: 'not found', paths: HEALTH_PATHS.filter((p) => p !== '/metrics' || options.registry) }));
  });
  server.setTimeout(30_000, (socket) => socket.destroy());
  guardConnections(server, { maxConnections: 64, logger: options.logger });
  const host = options.host ?? '127.0.0.1';
  const port = await listenOn(server, options.port, host);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
