// An HTTP interactions worker as a hostile client meets it: a signed interaction sent again runs
// nothing and hands the sender nothing; a flood of idle and half-sent connections leaves room for
// Discord's; a refused request and an oversized body end their connection, the body not read past
// the limit; a connection that sends nothing is closed.
import { connect, type Socket } from 'node:net';

import { REST } from 'discord.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Deps } from '../../commands/index.js';
import { MAX_BODY_BYTES, MAX_CONNECTIONS, startInteractionsServer, type InteractionsServer } from '../../src/bot/http-interactions.js';
import { Router } from '../../src/bot/router.js';
import { chatInput, startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { snowflake } from '../discord-double/ids.js';

let double: DiscordDouble;
let server: InteractionsServer;
let router: Router;
let url: string;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  double = await startDiscordDouble();
  // A command the bot does not know is answered with a notice: enough to see whether it ran.
  router = new Router({ logger } as unknown as Deps, logger);
  server = await worker(1_000);
  url = `http://127.0.0.1:${server.port}/interactions`;
});
afterAll(async () => {
  await server.close();
  await double.close();
});

/** A worker on the test's router whose requests must arrive whole within `requestTimeoutMs`. */
const worker = (requestTimeoutMs: number) =>
  startInteractionsServer({ host: '127.0.0.1', port: 0, publicKey: double.publicKey, router, rest: new REST(), logger, requestTimeoutMs });

const post = (body: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

/** Resolves when the socket closes; `what` names it in the error if it stays open past `ms` (a safety net, never the assertion). */
const closed = (socket: Socket, ms: number, what: string) =>
  new Promise<void>((resolve, reject) => {
    if (socket.destroyed) return resolve();
    const timer = setTimeout(() => reject(new Error(`${what} is still open after ${ms} ms`)), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });

describe('a signed interaction sent again', () => {
  it('runs once when two copies arrive together: the other is refused with 409 and gets no answer', async () => {
    const body = JSON.stringify(chatInput({ command: 'nope' }));
    const headers = double.signatureHeaders(body);
    const ran = router.counts.commands;
    const answers = await Promise.all([post(body, headers), post(body, headers)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(await refused.json()).toEqual({ error: 'interaction already taken' });
    expect(router.counts.commands - ran).toBe(1);
  });

  it('runs nothing when sent again later within the signature window, and the sender learns nothing of the first answer', async () => {
    const body = JSON.stringify(chatInput({ command: 'nope' }));
    const headers = double.signatureHeaders(body);
    const first = await post(body, headers);
    expect(first.status).toBe(200);
    const ran = router.counts.commands;
    const again = await post(body, headers);
    expect(again.status).toBe(409);
    expect(await again.text()).not.toContain('content');
    expect(router.counts.commands).toBe(ran);
  });
});

describe('a flood of connections', () => {
  it(`still answers a signed PING with ${MAX_CONNECTIONS * 2} idle and half-sent connections open`, async () => {
    // No timeout frees a place meanwhile: the flood holds its connections as long as it likes.
    const patient = await worker(120_000);
    const flood: Socket[] = [];
    const connected = (s: Socket) =>
      new Promise<void>((resolve) => (s.once('connect', () => resolve()), s.once('error', () => resolve()), s.once('close', () => resolve())));
    for (let i = 0; i < MAX_CONNECTIONS * 2; i++) {
      const s = connect(patient.port, '127.0.0.1');
      s.on('error', () => undefined);
      // Half of them send the start of a request and stop there; the others send nothing.
      if (i % 2 === 0) s.once('connect', () => s.write('POST /interactions HTTP/1.1\r\nHost: bot\r\nX-Sig'));
      flood.push(s);
    }
    try {
      await Promise.all(flood.map(connected));
      const ping = JSON.stringify({ id: snowflake(), application_id: double.applicationId, type: 1, token: 'ping-token', version: 1 });
      const answer = await fetch(`http://127.0.0.1:${patient.port}/interactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...double.signatureHeaders(ping) },
        body: ping,
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ type: 1 });
    } finally {
      for (const s of flood) s.destroy();
      await patient.close();
    }
  }, 30_000);

  it('closes a connection that sends nothing once the request timeout has passed', async () => {
    const s = connect(server.port, '127.0.0.1');
    s.on('error', () => undefined);
    // Read, or the close would wait behind the unread 408 and never be seen.
    s.resume();
    await closed(s, 20_000, 'a connection that sent nothing');
  }, 30_000);

  it('closes the connection of a refused request with its answer', async () => {
    const s = connect(server.port, '127.0.0.1');
    let said = '';
    s.on('data', (d: Buffer) => (said += d.toString()));
    s.once('connect', () => s.write('GET / HTTP/1.1\r\nHost: bot\r\n\r\n'));
    await closed(s, 20_000, 'a refused request’s connection');
    expect(said).toMatch(/^HTTP\/1\.1 405/);
    expect(said.toLowerCase()).toContain('connection: close');
  }, 30_000);
});

describe('an oversized body', () => {
  it(`is read no further than ${MAX_BODY_BYTES / 1024} KiB: a 13 MB body ends its connection`, async () => {
    const read = new Promise<number>((resolve) => server.server.once('connection', (socket: Socket) => socket.once('close', () => resolve(socket.bytesRead))));
    const s = connect(server.port, '127.0.0.1');
    s.on('error', () => undefined);
    const headers = double.signatureHeaders('');
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let said = '';
    s.on('data', (d: Buffer) => (said += d.toString()));
    s.once('connect', () => {
      s.write(
        `POST /interactions HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nX-Signature-Ed25519: ${headers['x-signature-ed25519']}\r\nX-Signature-Timestamp: ${headers['x-signature-timestamp']}\r\n\r\n`,
      );
      // 13 MB, written as fast as the connection takes it, until it is closed.
      let sent = 0;
      const more = () => {
        while (sent < 13 * 2 ** 20 && !s.destroyed) {
          sent += chunk.length;
          if (!s.write(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`)) return void s.once('drain', more);
        }
      };
      more();
    });
    const bytes = await read;
    await closed(s, 20_000, 'the oversized request’s connection');
    // The limit, the read that crossed it and the one under way then (Node reads 64 KiB at a time):
    // a body read on after the refusal would reach megabytes.
    expect(bytes).toBeLessThanOrEqual(MAX_BODY_BYTES + 2 * 64 * 1024);
    expect(said).toMatch(/^HTTP\/1\.1 413/);
  }, 30_000);
});
