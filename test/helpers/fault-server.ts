// A local HTTP server that misbehaves on cue: each request takes the next scripted behaviour (or
// the default), and every request is recorded as it arrived, raw URL and headers included.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Behaviour = (
  | { status: number; body?: unknown; text?: string; headers?: Record<string, string>; delayMs?: number }
  /** Accept the request and never answer. */
  | { hang: true }
  /** Close the connection without an answer. */
  | { close: true }
  /** Promise a body of `declared` bytes, send `text`, then close the connection. */
  | { truncate: true; text: string; declared: number }
) & {
  /** Only for a request whose URL ends with this (requests sent at once may arrive in any order); any request without it. */
  path?: string;
};

export interface RecordedRequest {
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  at: number;
}

export interface FaultServer {
  url: string;
  requests: RecordedRequest[];
  /** Behaviours for the next requests, in order. */
  script(...behaviours: Behaviour[]): void;
  /** What every request gets once the script has run out. */
  setDefault(behaviour: Behaviour): void;
  close(): Promise<void>;
}

export async function startFaultServer(initial: Behaviour = { status: 200, body: { data: [] } }): Promise<FaultServer> {
  const queue: Behaviour[] = [];
  let fallback = initial;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', method: req.method ?? '', headers: req.headers, at: Date.now() });
    const url = (req.url ?? '').split('?')[0] ?? '';
    const next = queue.findIndex((q) => q.path === undefined || url.endsWith(q.path));
    const b = next >= 0 ? queue.splice(next, 1)[0]! : fallback;
    if ('hang' in b) return;
    if ('close' in b) {
      req.socket.destroy();
      return;
    }
    if ('truncate' in b) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(b.declared) });
      res.write(b.text);
      setTimeout(() => req.socket.destroy(), 10);
      return;
    }
    const send = () => {
      const text = b.text ?? JSON.stringify(b.body ?? {});
      res.writeHead(b.status, { 'content-type': b.text !== undefined ? 'text/html' : 'application/json', ...b.headers });
      res.end(text);
    };
    if (b.delayMs) setTimeout(send, b.delayMs);
    else send();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...behaviours) => queue.push(...behaviours),
    setDefault: (b) => {
      fallback = b;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
