// Interaction callbacks sent straight over undici (src/bot/direct-callbacks.ts), against a real local
// HTTP server standing in for Discord's REST API: the body Discord reads (JSON, or multipart with
// payload_json and files[n]), Discord's errors as DiscordAPIError with their code, and a 429 handed
// to discord.js' own path (which waits and retries).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Client, DiscordAPIError } from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { createCallbackSender, multipart, type CallbackSender } from '../../src/bot/direct-callbacks.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

let server: Server;
let seen: Seen[] = [];
let answers: { status: number; headers?: Record<string, string>; body?: unknown; cut?: boolean }[] = [];
let client: Client;
let sender: CallbackSender;
let viaQueue = 0;
/** While set, replies (anything but autocomplete choices) get no answer until released. */
let holdReplies = false;
let held: (() => void)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      if (holdReplies && !Buffer.concat(chunks).toString().startsWith('{"type":8')) {
        held.push(() => res.writeHead(204).end());
        return;
      }
      const answer = answers.shift() ?? { status: 204 };
      // The connection lost halfway through the answer.
      if (answer.cut) {
        res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"id":');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
      res.writeHead(answer.status, { ...(text ? { 'content-type': 'application/json' } : {}), ...answer.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new Client({ intents: [], rest: { api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, retries: 1 } });
  client.rest.setToken('a-token-for-the-other-routes');
  // Counts what goes through discord.js' queue: only a 429, a 5xx or a failed connection should.
  const queuedPost = client.rest.post.bind(client.rest);
  client.rest.post = (...args: Parameters<typeof queuedPost>) => {
    viaQueue++;
    return queuedPost(...args);
  };
  sender = createCallbackSender(client.rest);
});

afterAll(async () => {
  await sender.close();
  await client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  holdReplies = false;
  held = [];
  viaQueue = 0;
  seen = [];
  answers = [];
});

const post = (body: unknown, files?: { name: string; data: Buffer }[], onWritten?: () => void) =>
  sender.send('1180000000000000001', 'interaction-token', body, files, onWritten);
const choices = { type: 8, data: { choices: [{ name: 'Nova', value: 'Nova' }] } };
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);

describe('interaction callbacks sent directly', () => {
  it('posts JSON to the versioned callback route, with no Authorization', async () => {
    await post({ type: 4, data: { content: 'hi', allowed_mentions: { parse: [] } } });
    expect(seen).toHaveLength(1);
    const [call] = seen;
    expect(call?.method).toBe('POST');
    expect(call?.url).toBe('/api/v10/interactions/1180000000000000001/interaction-token/callback');
    expect(call?.headers.authorization).toBeUndefined();
    expect(call?.headers['user-agent']).toMatch(/^DiscordBot \(/);
    expect(call?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(call!.body.toString())).toEqual({ type: 4, data: { content: 'hi', allowed_mentions: { parse: [] } } });
    expect(viaQueue).toBe(0);
  });

  it('sends files as multipart Discord reads: payload_json and files[n], a PNG typed as one', async () => {
    const body = { type: 4, data: { embeds: [{ image: { url: 'attachment://card.png' } }], attachments: [{ id: 0, filename: 'card.png' }] } };
    await post(body, [{ name: 'card.png', data: png }]);
    const call = seen[0]!;
    expect(call.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(call.body, { headers: { 'content-type': String(call.headers['content-type']) } }).formData();
    expect(JSON.parse(form.get('payload_json') as string)).toEqual(body);
    const file = form.get('files[0]') as File;
    expect(file.name).toBe('card.png');
    expect(file.type).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true);
    expect(viaQueue).toBe(0);
  });

  it('keeps a file name from ending its header early, and makes a new boundary each time', () => {
    const a = multipart({ x: 1 }, [{ name: 'a"\r\nb.png', data: png }]);
    const b = multipart({ x: 1 }, [{ name: 'a.png', data: png }]);
    expect(a.body.toString('latin1')).toContain('filename="a%22%0D%0Ab.png"');
    expect(a.contentType).not.toBe(b.contentType);
  });

  it('throws Discord’s error as a DiscordAPIError with its code (10062 is what the router ignores)', async () => {
    answers = [{ status: 404, body: { message: 'Unknown interaction', code: 10062 } }];
    const error = await post({ type: 4, data: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect((error as DiscordAPIError).code).toBe(10062);
    expect((error as DiscordAPIError).status).toBe(404);
  });

  it('hands a 429 to discord.js, which waits as asked and sends again', async () => {
    answers = [
      {
        status: 429,
        headers: { 'retry-after': '0.05', 'x-ratelimit-scope': 'shared' },
        body: { message: 'You are being rate limited.', retry_after: 0.05, global: false },
      },
      {
        status: 429,
        headers: { 'retry-after': '0.05', 'x-ratelimit-scope': 'shared' },
        body: { message: 'You are being rate limited.', retry_after: 0.05, global: false },
      },
      { status: 204 },
    ];
    await post({ type: 4, data: { content: 'late' } });
    expect(seen.map((s) => s.url.endsWith('/callback'))).toEqual([true, true, true]);
    expect(viaQueue).toBe(1);
    expect(JSON.parse(seen[2]!.body.toString())).toEqual({ type: 4, data: { content: 'late' } });
  });
  it('sends autocomplete choices on connections of their own: never queued behind replies that every connection is busy with', async () => {
    holdReplies = true;
    // 80 replies (cards, slow uploads) in flight: more than the pool's 64 connections, so 16 wait in its queue.
    const replies = Array.from({ length: 80 }, () => post({ type: 4, data: { content: 'slow' } }));
    for (let i = 0; i < 200 && seen.length < 64; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toHaveLength(64);
    await post({ type: 8, data: { choices: [{ name: 'Nova', value: 'Nova' }] } });
    expect(seen).toHaveLength(65);
    expect(JSON.parse(seen[64]!.body.toString()) as unknown).toMatchObject({ type: 8 });
    holdReplies = false;
    for (const release of held.splice(0)) release();
    for (let i = 0; i < 200 && held.length + seen.length < 81; i++) {
      for (const release of held.splice(0)) release();
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(replies);
    expect(seen).toHaveLength(81);
  });

  it('writes autocomplete choices in the same turn of the event loop, on a connection used before: not after the rest of the poll phase', async () => {
    await post(choices);
    // Whatever the loop would run after this turn's I/O (the check phase) comes after the choices' write.
    const order: string[] = [];
    const sent = post(choices, undefined, () => order.push('written'));
    setImmediate(() => order.push('next phase'));
    await sent;
    expect(order).toEqual(['written', 'next phase']);
    expect(seen).toHaveLength(2);
    expect(viaQueue).toBe(0);
  });

  it('tells when a reply goes out on its connection, before Discord has read it', async () => {
    let writtenWith = -1;
    await post({ type: 4, data: { content: 'hi' } }, [{ name: 'card.png', data: png }], () => (writtenWith = seen.length));
    expect(writtenWith).toBe(0);
    expect(seen).toHaveLength(1);
  });

  it('reads Discord’s refusal of choices as of any callback: a DiscordAPIError with its code, a 429 handed to discord.js', async () => {
    answers = [{ status: 404, body: { message: 'Unknown interaction', code: 10062 } }];
    const error = await post(choices).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect((error as DiscordAPIError).code).toBe(10062);
    answers = [
      {
        status: 429,
        headers: { 'retry-after': '0.05', 'x-ratelimit-scope': 'shared' },
        body: { message: 'You are being rate limited.', retry_after: 0.05, global: false },
      },
      { status: 204 },
    ];
    await post(choices);
    expect(viaQueue).toBe(1);
    expect(seen).toHaveLength(3);
  });

  it('hands choices whose answer was cut off with the connection to discord.js, which sends them again: never a wait without end', async () => {
    answers = [{ status: 200, cut: true }, { status: 204 }];
    await post(choices);
    expect(seen).toHaveLength(2);
    expect(viaQueue).toBe(1);
  });
});
