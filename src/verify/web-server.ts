// The web side's own listener (gateway mode, or WEB_PORT in HTTP mode): `/verify` and nothing else.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import type { Logger } from 'pino';

import { listenOn } from '../observe/listen.js';

/** A browser sends a whole request at once: one that trickles is cut off. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Connections at once at most: a verification is a few requests, and every open one holds memory. */
const MAX_CONNECTIONS = 512;

export interface WebServer {
  url: string;
  close(): Promise<void>;
}

export type WebHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export async function startWebServer(options: { host: string; port: number; handle: WebHandler; logger: Logger }): Promise<WebServer> {
  const server: Server = createServer(
    { headersTimeout: REQUEST_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 },
    (req, res) => {
      options
        .handle(req, res)
        .then((handled) => {
          if (!handled) res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
        })
        .catch((e: unknown) => {
          options.logger.error({ err: (e as Error).message }, 'web request failed');
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Something went wrong: nothing was linked.\n');
        });
    },
  );
  server.maxConnections = MAX_CONNECTIONS;
  const port = await listenOn(server, options.port, options.host);
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
