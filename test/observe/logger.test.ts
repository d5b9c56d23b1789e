// The bot's logger keeps secrets out of its lines wherever they stand (its cost: bench/logger.bench.ts).
import { Writable } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { createLogger, passwordOf } from '../../src/observe/logger.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.logger-token-abcdefghijklmnopqrstuv';
const API_KEY = 'lookup-key-0123456789';

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

describe('the bot logger', () => {
  it('censors each secret wherever it stands: a message, a nested field, a URL; and top-level token and authorization fields', () => {
    const { lines, stream } = capture();
    const logger = createLogger('info', [TOKEN, API_KEY, undefined, passwordOf('redis://:redis-password-42@127.0.0.1:6379')], stream);
    logger.error({ err: { message: `refused: Bot ${TOKEN}`, request: { url: `https://stats.example/v2?key=${API_KEY}` } } }, 'failed');
    logger.warn({ token: 'an-interaction-token-value', headers: { authorization: 'Bot something-else-entirely' } }, 'refused');
    logger.info(`connecting to redis://:redis-password-42@127.0.0.1:6379 with ${TOKEN} twice ${TOKEN}`);
    const all = lines.join('');
    expect(lines).toHaveLength(3);
    for (const secret of [TOKEN, API_KEY, 'redis-password-42', 'an-interaction-token-value', 'something-else-entirely']) expect(all).not.toContain(secret);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed[0]).toMatchObject({
      msg: 'failed',
      err: { message: 'refused: Bot [redacted]', request: { url: 'https://stats.example/v2?key=[redacted]' } },
    });
    expect(parsed[1]).toMatchObject({ token: '[redacted]', headers: { authorization: '[redacted]' } });
    expect(parsed[2]!.msg).toBe('connecting to redis://:[redacted]@127.0.0.1:6379 with [redacted] twice [redacted]');
  });

  it('censors a secret percent-encoded in a URL, and one with a quote or a backslash as the JSON line escapes it', () => {
    const { lines, stream } = capture();
    const password = passwordOf('redis://user:p%40ssword-99@127.0.0.1:6379');
    const quoted = 'key"with\\odd-chars';
    createLogger('info', [password, quoted], stream).info({ url: 'redis://user:p%40ssword-99@127.0.0.1:6379', key: quoted }, `tried ${quoted}`);
    expect(lines[0]).not.toContain('p%40ssword-99');
    expect(lines[0]).not.toContain('odd-chars');
    expect(JSON.parse(lines[0]!)).toMatchObject({ url: 'redis://user:[redacted]@127.0.0.1:6379', key: '[redacted]', msg: 'tried [redacted]' });
  });

  it('leaves lines without secrets as they are, and does not search for a secret too short to tell from a word', () => {
    const { lines, stream } = capture();
    createLogger('info', ['info', 'a'], stream).info({ interaction: '1180000000000000001', outcome: 'direct' }, 'interaction info');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, interaction: '1180000000000000001', outcome: 'direct', msg: 'interaction info' });
  });

  it('finds the password (or lone user) of a URL', () => {
    expect(passwordOf('redis://:pw-123456@127.0.0.1:6379')).toBe('pw-123456');
    expect(passwordOf('redis://user:p%40ss-word@127.0.0.1')).toBe('p@ss-word');
    expect(passwordOf('https://operator@stats.example')).toBe('operator');
    expect(passwordOf('https://stats.example')).toBeUndefined();
    expect(passwordOf(undefined)).toBeUndefined();
    expect(passwordOf('not a url')).toBeUndefined();
  });
});
