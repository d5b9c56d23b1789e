// A proxy between the bot and the stats service (or Discord's double) that passes requests through,
// or fails them on cue: hangs, 5xx, 429 with Retry-After, truncated JSON, an HTML page, a dropped
// connection, and, for requests that reach the other side, an answer held back or lost. It
// records every request as it arrived (raw URL), so a test can check what reached the service.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * `late-answer` passes the request through at once and holds its answer `delayMs`; `lost-answer`
 * passes it through and drops the connection instead of answering (what was asked was done, and
 * the asker never hears so).
 */
export type Fault = 'pass' | 'slow' | 'hang' | 500 | 503 | 429 | 'truncate' | 'html' | 'close' | 'late-answer' | 'lost-answer';

export interface FaultProxy {
  url: string;
  /** Raw request URLs that reached the proxy, in order. */
  requests: string[];
  /** Requests actually passed through to the service. */
  passed: () => number;
  /**
   * `slow` passes each request through after `delayMs` (default 1,200: past the bot's direct-reply
   * budget). With `times`, the fault meets that many requests and the proxy passes them after.
   */
  setFault(fault: Fault, delayMs?: number, times?: number): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let fault: Fault = 'pass';
  let delayMs = 1_200;
  let times = Infinity;
  let passed = 0;
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const now: Fault = times-- > 0 ? fault : 'pass';
    switch (now) {
      case 'hang':
        return;
      case 'close':
        req.socket.destroy();
        return;
      case 500:
      case 503:
        res
          .writeHead(now, { 'content-type': 'application/json' })
          .end(JSON.stringify({ errors: [{ code: 'Internal', message: 'injected failure', data: {} }] }));
        return;
      case 429:
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ message: 'API rate limit exceeded' }));
        return;
      case 'truncate':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"platformInfo":{"platformSlug":"pc_st');
        return;
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><h1>Maintenance</h1></body></html>');
        return;
      case 'slow':
      case 'late-answer':
      case 'lost-answer':
      case 'pass': {
        passed++;
        const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
          if (now === 'lost-answer') {
            up.resume();
            up.on('end', () => req.socket.destroy());
            return;
          }
          const answer = () => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          };
          if (now === 'late-answer') setTimeout(answer, delayMs);
          else answer();
        });
        forward.on('error', () => res.destroy());
        if (now === 'slow') setTimeout(() => req.pipe(forward), delayMs);
        else req.pipe(forward);
        return;
      }
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    passed: () => passed,
    setFault: (f, delay, n = Infinity) => {
      fault = f;
      times = n;
      if (delay !== undefined) delayMs = delay;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
