// Each answer to an interaction that goes through discord.js' REST queue settles within a deadline
// (src/bot/answer-deadline.ts), against a real local HTTP server standing in for Discord's REST API:
// a long Retry-After is refused at once, an endless run of short 429s (which discord.js would send
// again forever) and a request Discord never answers end at the deadline, and nothing is sent after.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { REST } from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { AnswerDeadlineError, LONGEST_RATE_LIMIT_WAIT_MS, withinDeadline } from '../../src/bot/answer-deadline.js';
import { restOptions, waitsTooLong } from '../../src/bot/client.js';
import { createCallbackSender } from '../../src/bot/direct-callbacks.js';
import { restPoster } from '../../src/bot/feed.js';
import { WebhookAnswer } from '../../src/bot/webhook-answer.js';

type Behaviour = 'ok' | 'long-429' | 'short-429s' | 'silent';

let server: Server;
let api: string;
let behaviour: Behaviour = 'ok';
let requests = 0;
/** Requests the server holds without an answer, and whether their client went away. */
let silent: { res: ServerResponse; closed: boolean }[] = [];

const limited = (res: ServerResponse, seconds: number) => {
  res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(seconds), 'x-ratelimit-scope': 'shared' });
  res.end(JSON.stringify({ message: 'You are being rate limited.', retry_after: seconds, global: false }));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      if (behaviour === 'long-429') return limited(res, 60);
      if (behaviour === 'short-429s') return limited(res, 0.02);
      if (behaviour === 'silent') {
        const held = { res, closed: false };
        res.on('close', () => (held.closed = true));
        silent.push(held);
        return;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});

afterAll(async () => {
  for (const s of silent) s.res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  behaviour = 'ok';
  requests = 0;
  for (const s of silent) s.res.destroy();
  silent = [];
});

/** The REST client the bot answers with (its options), a fresh queue each test. */
const botRest = () => new REST({ ...restOptions(api), timeout: 10_000 });
/** An answer whose first answer (a defer) went out: what follows it goes through `rest`. */
async function answerOf(rest: REST, deadlineMs: number): Promise<WebhookAnswer> {
  const answer = new WebhookAnswer(() => Promise.resolve(), true, rest, '1180000000000000001', `token-${Math.random()}`, deadlineMs);
  await answer.defer(false);
  return answer;
}
const edit = async (answer: Promise<WebhookAnswer>) => (await answer).edit({ content: 'the stats', embeds: [], components: [], ephemeral: false });
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an answer through the REST queue', () => {
  it('is sent as before when Discord takes it', async () => {
    await edit(answerOf(botRest(), 2_000));
    expect(requests).toBe(1);
  });

  it('fails at once when Discord asks it to wait longer than the longest wait it sits out', async () => {
    behaviour = 'long-429';
    const started = performance.now();
    // Its deadline is far off: what ends it is the refusal to sleep 60 s.
    const error = await edit(answerOf(botRest(), 120_000)).catch((e: unknown) => e);
    // Told as a log line can read it (discord.js' own error has no message).
    expect(error).toBeInstanceOf(AnswerDeadlineError);
    expect((error as Error).message).toBe('an edit of the answer: Discord asked to wait 60 s (rate limited), longer than the 10 s an answer waits');
    expect(performance.now() - started).toBeLessThan(LONGEST_RATE_LIMIT_WAIT_MS);
    expect(requests).toBe(1);
  });

  it('ends at its deadline when Discord keeps answering 429 (which discord.js would send again forever), and sends nothing after', async () => {
    behaviour = 'short-429s';
    const error = await edit(answerOf(botRest(), 400)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerDeadlineError);
    expect((error as Error).message).toBe("an edit of the answer: Discord's REST API did not take it within 0.4 s");
    // It did keep trying until then.
    expect(requests).toBeGreaterThan(3);
    const atDeadline = requests;
    await settle(300);
    // At most the try under way when the time ran out.
    expect(requests - atDeadline).toBeLessThanOrEqual(1);
  });

  it('ends at its deadline when Discord never answers, and lets go of the request', async () => {
    behaviour = 'silent';
    const answer = await answerOf(botRest(), 300);
    const error = await answer.followUp({ content: 'more', embeds: [], components: [], ephemeral: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerDeadlineError);
    expect((error as Error).message).toMatch(/^a follow-up: .* within 0.3 s$/);
    await settle(200);
    expect(silent.length).toBeGreaterThanOrEqual(1);
    expect(silent.every((s) => s.closed)).toBe(true);
  });

  it('bounds a callback the direct way handed to the queue (its 429) the same way', async () => {
    behaviour = 'short-429s';
    const rest = botRest();
    const sender = createCallbackSender(rest, undefined, undefined, 400);
    try {
      const error = await sender.send('1180000000000000001', 'token-callback', { type: 4, data: { content: 'hi' } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AnswerDeadlineError);
      expect((error as Error).message).toMatch(/^a callback sent through the REST queue: /);
    } finally {
      await sender.close();
    }
  });
});

describe('a post to a channel (the feed, /track’s check)', () => {
  const post = (deadlineMs: number) =>
    restPoster(botRest().setToken('MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.channel-post-token-abcdefghijklmnop'), 50, deadlineMs).post(
      '1180000000000000777',
      { content: '', embeds: [{ title: 'Ember played' }], components: [], ephemeral: false },
      { nonce: 'n'.repeat(25) },
    );

  it('fails at once when Discord asks it to wait long (a channel in slowmode), not sent again', async () => {
    behaviour = 'long-429';
    const started = performance.now();
    const r = await post(120_000);
    expect(r).toMatchObject({
      ok: false,
      code: null,
      message: 'a channel post: Discord asked to wait 60 s (rate limited), longer than the 10 s an answer waits',
    });
    expect(performance.now() - started).toBeLessThan(LONGEST_RATE_LIMIT_WAIT_MS);
    expect(requests).toBe(1);
  });

  it('ends at its deadline when Discord keeps answering 429, and is not tried again after it', async () => {
    behaviour = 'short-429s';
    const r = await post(400);
    expect(r).toMatchObject({ ok: false, code: null, message: "a channel post: Discord's REST API did not take it within 0.4 s" });
    const atDeadline = requests;
    await settle(300);
    expect(requests - atDeadline).toBeLessThanOrEqual(1);
  });

  it('is posted as before when Discord takes it', async () => {
    expect(await post(2_000)).toEqual({ ok: true });
    expect(requests).toBe(1);
  });
});

describe('the longest rate-limit wait', () => {
  it('holds answers (interaction and webhook routes) and channel posts to it, and lets the bot’s own calls wait as asked', () => {
    const limit = (route: string, retryAfter: number) =>
      ({ route, retryAfter, timeToReset: retryAfter, sublimitTimeout: 0 }) as Parameters<typeof waitsTooLong>[0];
    expect(waitsTooLong(limit('/webhooks/:id/:token/messages/:id', 60_000))).toBe(true);
    expect(waitsTooLong(limit('/interactions/:id/:token/callback', 60_000))).toBe(true);
    expect(waitsTooLong(limit('/webhooks/:id/:token', 2_000))).toBe(false);
    expect(waitsTooLong(limit('/channels/:id/messages', 60_000))).toBe(true);
    expect(waitsTooLong(limit('/channels/:id/messages', 2_000))).toBe(false);
    expect(waitsTooLong(limit('/gateway/bot', 60_000))).toBe(false);
  });
});

describe('withinDeadline', () => {
  it('passes on the call’s own result and error, and aborts its signal only at the deadline', async () => {
    let signal: AbortSignal | undefined;
    await expect(withinDeadline('x', (s) => ((signal = s), Promise.resolve(7)), 1_000)).resolves.toBe(7);
    expect(signal?.aborted).toBe(false);
    await expect(withinDeadline('x', () => Promise.reject(new Error('refused')), 1_000)).rejects.toThrow('refused');
    const late = withinDeadline('x', (s) => ((signal = s), new Promise<never>(() => undefined)), 50);
    await expect(late).rejects.toBeInstanceOf(AnswerDeadlineError);
    expect(signal?.aborted).toBe(true);
  });
});
