// An HTTP interactions worker cuts off a client that trickles its request (one header byte at a
// time, never idle, never done) once its request timeout has passed, not at Node's own check of
// such timeouts every 30 s: each trickling connection held one of MAX_CONNECTIONS that long.
import { connect } from 'node:net';

import { REST } from 'discord.js';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { startInteractionsServer, type InteractionsServer } from '../../src/bot/http-interactions.js';
import type { Router } from '../../src/bot/router.js';

let server: InteractionsServer;

beforeAll(async () => {
  server = await startInteractionsServer({
    host: '127.0.0.1',
    port: 0,
    publicKey: 'a'.repeat(64),
    router: { busy: 0 } as unknown as Router,
    rest: new REST(),
    logger: pino({ level: 'silent' }),
    requestTimeoutMs: 300,
  });
});
afterAll(() => server.close());

it('cuts off a client that trickles its headers soon after its request timeout', async () => {
  const started = performance.now();
  const socket = connect(server.port, '127.0.0.1');
  socket.on('connect', () => socket.write('POST /interactions HTTP/1.1\r\nHost: bot\r\n'));
  const trickle = setInterval(() => socket.write('X'), 100);
  let said = '';
  socket.on('data', (d: Buffer) => (said += d.toString()));
  const closedAfter = await new Promise<number>((resolve) => {
    socket.on('close', () => resolve(performance.now() - started));
    // Far short of Node's 30 s check: a connection still open here was not cut off in time.
    setTimeout(() => resolve(Number.POSITIVE_INFINITY), 5_000).unref();
  });
  clearInterval(trickle);
  socket.destroy();
  expect(closedAfter).toBeLessThan(3_000);
  expect(said).toMatch(/^HTTP\/1\.1 408/);
});
