// The lookup client against a local server that misbehaves on cue: timeouts, hangs, 5xx, 429 with
// Retry-After, truncated and non-JSON bodies, gateway-style errors, dropped connections.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { createLookupCache, type LookupCache } from '../../src/lookup/cache.js';
import { DEFAULT_TTL_MS, FAILURE_WARNING_INTERVAL_MS, MAX_ANSWER_BYTES, MAX_RATE_LIMIT_HOLD_MS } from '../../src/lookup/client.js';
import type { StatsProfile } from '../../src/lookup/schemas.js';
import { smallLines } from '../fixtures/small-dataset.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { testLookup } from '../helpers/lookup.js';
import { startService } from '../helpers/service.js';

let fault: FaultServer;
/** A real profile payload, taken from the real service, for the fault server to serve. */
let profile: StatsProfile;

beforeAll(async () => {
  const service = await startService(smallLines());
  const res = await service.request('/v2/title_a/standard/profile/pc_store_a/76561198000000042');
  profile = (res.body as { data: StatsProfile }).data;
  await service.close();
  fault = await startFaultServer();
});
afterAll(async () => {
  await fault.close();
});
beforeEach(() => {
  fault.requests.length = 0;
  fault.setDefault({ status: 200, body: { data: profile } });
});

/** A fresh client (and memory cache) per test. */
const lookup = (options: Parameters<typeof testLookup>[1] = {}) => testLookup(fault.url, options);
const elapsed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const value = await f();
  return [value, performance.now() - started];
};

describe('time', () => {
  it('gives up on a hanging service after the request timeout, as a timeout', async () => {
    fault.setDefault({ hang: true });
    const { client } = await lookup({ requestTimeoutMs: 200 });
    const [r, ms] = await elapsed(() => client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 5_000 }));
    expect(r.errors?.[0]).toMatchObject({ kind: 'timeout', status: null });
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(ms).toBeLessThan(1_500);
    // A timeout is not retried: the service is slow, asking again spends quota and the user's time.
    expect(fault.requests).toHaveLength(1);
    await client.close();
  });

  it('answers within the caller’s deadline even when the request timeout is longer', async () => {
    fault.setDefault({ hang: true });
    const { client } = await lookup({ requestTimeoutMs: 10_000 });
    const [r, ms] = await elapsed(() => client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 300 }));
    expect(r.errors?.[0]?.kind).toBe('timeout');
    expect(ms).toBeLessThan(1_000);
    await client.close();
  });

  it('answers a caller who joins a slow lookup within that caller’s own deadline', async () => {
    fault.setDefault({ status: 200, body: { data: profile }, delayMs: 1_000 });
    const { client } = await lookup();
    const slow = client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 5_000 });
    const [quick, ms] = await elapsed(() => client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 200 }));
    expect(quick.errors?.[0]?.kind).toBe('timeout');
    expect(ms).toBeLessThan(800);
    expect((await slow).data).toBeDefined();
    expect(fault.requests).toHaveLength(1);
    await client.close();
  });

  it('does not cut a caller short by the deadline of a lookup it would join: it starts its own, which later callers join', async () => {
    fault.setDefault({ status: 200, body: { data: profile }, delayMs: 600 });
    const { client } = await lookup();
    const quick = client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 300 });
    const patient = client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 5_000 });
    const later = client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 5_000 });
    expect((await quick).errors?.[0]?.kind).toBe('timeout');
    expect((await patient).data?.platformInfo.platformUserHandle).toBe('Ash');
    expect((await later).data?.platformInfo.platformUserHandle).toBe('Ash');
    expect(fault.requests).toHaveLength(2);
    expect(client.stats.joined).toBe(1);
    await client.close();
  });
});

describe('retries', () => {
  it('retries 5xx with backoff until an answer comes', async () => {
    fault.script({ status: 503, body: { errors: [{ code: 'Internal', message: 'busy', data: {} }] } }, { status: 502, text: '<html>bad gateway</html>' });
    const { client } = await lookup();
    const r = await client.profile('title_a', 'pc_store_a', 'x');
    expect(r.data?.platformInfo.platformUserHandle).toBe('Ash');
    expect(fault.requests).toHaveLength(3);
    await client.close();
  });

  it('stops after the last attempt and says the service is unavailable', async () => {
    fault.setDefault({ status: 500, body: { errors: [{ code: 'Internal', message: 'The service failed to answer this request.', data: {} }] } });
    const { client } = await lookup({ maxAttempts: 3 });
    const r = await client.profile('title_a', 'pc_store_a', 'x');
    expect(r.errors?.[0]).toMatchObject({ kind: 'unavailable', status: 500, code: 'Internal' });
    expect(fault.requests).toHaveLength(3);
    await client.close();
  });

  it('retries a dropped connection', async () => {
    fault.script({ close: true });
    const { client } = await lookup();
    expect((await client.profile('title_a', 'pc_store_a', 'x')).data).toBeDefined();
    expect(fault.requests).toHaveLength(2);
    await client.close();
  });

  it('says unavailable when nothing listens', async () => {
    const { client } = await lookup({ baseUrl: 'http://127.0.0.1:9' });
    const r = await client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 2_000 });
    expect(r.errors?.[0]).toMatchObject({ kind: 'unavailable', status: null, data: { reason: 'ECONNREFUSED' } });
    await client.close();
  });

  it('waits at least what Retry-After asks before trying again', async () => {
    fault.script({ status: 429, body: { errors: [{ code: 'RateLimited', message: 'slow down', data: {} }] }, headers: { 'retry-after': '1' } });
    const { client } = await lookup();
    const r = await client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 5_000 });
    expect(r.data).toBeDefined();
    expect(fault.requests).toHaveLength(2);
    expect(fault.requests[1]!.at - fault.requests[0]!.at).toBeGreaterThanOrEqual(950);
    await client.close();
  });

  it('does not wait past the deadline: answers rate_limited with the time to wait', async () => {
    fault.setDefault({ status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'retry-after': '30' } });
    const { client } = await lookup();
    const [r, ms] = await elapsed(() => client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 2_000 }));
    expect(r.errors?.[0]).toMatchObject({ kind: 'rate_limited', status: 429, message: 'API rate limit exceeded', retryAfterMs: 30_000 });
    expect(ms).toBeLessThan(500);
    expect(fault.requests).toHaveLength(1);
    await client.close();
  });

  it('holds every lookup while a 429’s Retry-After runs, answering rate_limited or a stale copy without a request', async () => {
    const t = await lookup();
    fault.script({ status: 200, body: { data: { ...profile, expiryDate: new Date(Date.now() + 60_000).toISOString() } } });
    await t.client.profile('title_a', 'pc_store_a', 'kept');
    t.advance(2 * 60_000);
    fault.script({ status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'retry-after': '30' } });
    expect((await t.client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 2_000 })).errors?.[0]).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 30_000,
    });
    expect(fault.requests).toHaveLength(2);
    t.advance(10_000);
    const held = await t.client.profile('title_a', 'pc_store_a', 'someone-else');
    expect(held.meta.source).toBe('local');
    expect(held.errors?.[0]?.kind).toBe('rate_limited');
    expect(held.errors?.[0]?.retryAfterMs).toBeGreaterThan(19_000);
    expect(held.errors?.[0]?.retryAfterMs).toBeLessThanOrEqual(20_000);
    const stale = await t.client.profile('title_a', 'pc_store_a', 'kept');
    expect(stale.meta.source).toBe('stale');
    expect(stale.meta.staleBecause?.kind).toBe('rate_limited');
    expect(fault.requests).toHaveLength(2);
    t.advance(20_000);
    expect((await t.client.profile('title_a', 'pc_store_a', 'someone-else')).data).toBeDefined();
    expect(fault.requests).toHaveLength(3);
    await t.client.close();
  });

  it('holds at most a minute, whatever Retry-After asks', async () => {
    fault.script({ status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'retry-after': '3600' } });
    const t = await lookup();
    await t.client.profile('title_a', 'pc_store_a', 'x', { deadlineMs: 2_000 });
    t.advance(MAX_RATE_LIMIT_HOLD_MS - 1_000);
    expect((await t.client.profile('title_a', 'pc_store_a', 'x')).meta.source).toBe('local');
    expect(fault.requests).toHaveLength(1);
    t.advance(1_000);
    expect((await t.client.profile('title_a', 'pc_store_a', 'x')).data).toBeDefined();
    expect(fault.requests).toHaveLength(2);
    await t.client.close();
  });

  it('never retries other 4xx', async () => {
    for (const status of [400, 401, 403, 404, 422]) {
      fault.requests.length = 0;
      fault.setDefault({ status, body: { message: `status ${status}` } });
      const { client } = await lookup();
      const r = await client.profile('title_a', 'pc_store_a', 'x');
      expect(r.errors?.[0]?.status).toBe(status);
      expect(fault.requests, `status ${status}`).toHaveLength(1);
      await client.close();
    }
  });
});

describe('bodies', () => {
  it('reads gateway-style { message } errors by status', async () => {
    const cases: [number, string, string][] = [
      [401, 'No API key found in request', 'unauthorized'],
      [403, 'Forbidden', 'unauthorized'],
      [429, 'API rate limit exceeded', 'rate_limited'],
      [400, 'Bad Request', 'invalid_parameter'],
    ];
    for (const [status, message, kind] of cases) {
      fault.setDefault({ status, body: { message } });
      const { client } = await lookup({ maxAttempts: 1 });
      expect((await client.profile('title_a', 'pc_store_a', 'x')).errors?.[0]).toMatchObject({ kind, status, message, code: null });
      await client.close();
    }
  });

  it('reads a 404 that names no player (a gateway’s, a web page, a route miss) as no endpoint at that address: unavailable, warned, not remembered', async () => {
    const misses = [
      { status: 404, body: { message: 'no Route matched with those values' } },
      { status: 404, text: '<html><body>404 Not Found</body></html>' },
      { status: 404, body: { errors: [{ code: 'NotFound', message: 'No endpoint at /v2/title_a/standard/profile/pc_store_a/x.', data: {} }] } },
    ];
    for (const miss of misses) {
      fault.requests.length = 0;
      fault.setDefault(miss);
      const t = await lookup();
      for (let i = 0; i < 2; i++) {
        const r = await t.client.profile('title_a', 'pc_store_a', 'x');
        expect(r.errors?.[0], JSON.stringify(miss)).toMatchObject({ kind: 'unavailable', status: 404 });
        expect(r.errors?.[0]?.message).toMatch(/^No endpoint answered at that address/);
      }
      // Neither retried nor cached as a missing player.
      expect(fault.requests).toHaveLength(2);
      expect(t.logs()).toContain('lookups are failing');
      await t.client.close();
    }
  });

  it('keeps a 404 with any other code in its errors list a missing player or match', async () => {
    const { client } = await lookup();
    for (const code of ['CollectorResultStatus::NotFound', 'MatchNotFound', null]) {
      fault.setDefault({ status: 404, body: { errors: [{ code, message: 'Not here.' }] } });
      expect((await client.profile('title_a', 'pc_store_a', `p-${code}`)).errors?.[0]).toMatchObject({
        kind: 'not_found',
        status: 404,
        code,
        message: 'Not here.',
      });
    }
    await client.close();
  });

  it('calls a redirect or an unexpected status unavailable, warned and not retried; only 400, 422 or InvalidParameter are invalid parameters', async () => {
    const cases: [Parameters<FaultServer['setDefault']>[0], string][] = [
      [{ status: 301, text: '', headers: { location: 'https://stats.example.com/v2/' } }, 'unavailable'],
      [{ status: 302, body: { message: 'Found' } }, 'unavailable'],
      [{ status: 409, body: { message: 'Conflict' } }, 'unavailable'],
      [{ status: 405, body: { errors: [{ code: 'MethodNotAllowed', message: 'GET only' }] } }, 'unavailable'],
      [{ status: 422, body: { message: 'Unprocessable Entity' } }, 'invalid_parameter'],
      [{ status: 418, body: { errors: [{ code: 'InvalidParameter', message: 'bad platform' }] } }, 'invalid_parameter'],
    ];
    for (const [behaviour, kind] of cases) {
      fault.requests.length = 0;
      fault.setDefault(behaviour);
      const t = await lookup();
      const error = (await t.client.profile('title_a', 'pc_store_a', 'x')).errors?.[0];
      expect(error?.kind, JSON.stringify(behaviour)).toBe(kind);
      expect(fault.requests).toHaveLength(1);
      if (kind === 'unavailable') expect(t.logs()).toContain('lookups are failing');
      await t.client.close();
    }
    fault.setDefault({ status: 301, text: '', headers: { location: 'https://stats.example.com/v2/' } });
    const { client } = await lookup();
    expect((await client.profile('title_a', 'pc_store_a', 'x')).errors?.[0]).toMatchObject({
      status: 301,
      message: 'The stats service answered with a redirect (HTTP 301 to https://stats.example.com/v2/); check its base URL.',
      data: { location: 'https://stats.example.com/v2/' },
    });
    await client.close();
  });

  it('reads an errors list sent with HTTP 200 by the status its code implies', async () => {
    const cases: [string, string, number][] = [
      ['CollectorResultStatus::NotFound', 'not_found', 404],
      ['CollectorResultStatus::Private', 'private', 451],
      ['StandardApiV2::Private', 'private', 451],
      ['InvalidParameter', 'invalid_parameter', 400],
    ];
    for (const [code, kind, status] of cases) {
      fault.requests.length = 0;
      fault.setDefault({ status: 200, body: { errors: [{ code, message: `said ${code}` }] } });
      const { client } = await lookup();
      expect((await client.profile('title_a', 'pc_store_a', 'x')).errors?.[0]).toMatchObject({ kind, status, code, message: `said ${code}` });
      expect(fault.requests).toHaveLength(1);
      await client.close();
    }
  });

  it('calls a non-JSON or truncated success body an invalid response, and does not retry it', async () => {
    const text = JSON.stringify({ data: profile });
    const bodies = [
      { status: 200, text: '<html><body>Welcome to nginx!</body></html>' },
      { status: 200, text: text.slice(0, text.length / 2), headers: { 'content-type': 'application/json' } },
      { status: 200, body: { data: { platformInfo: {} } } },
      { status: 200, body: { something: 'else' } },
      { status: 200, text: '' },
    ];
    for (const b of bodies) {
      fault.requests.length = 0;
      fault.setDefault(b);
      const { client } = await lookup();
      const r = await client.profile('title_a', 'pc_store_a', 'x');
      expect(r.errors?.[0]?.kind, JSON.stringify(b).slice(0, 80)).toBe('invalid_response');
      expect(fault.requests).toHaveLength(1);
      await client.close();
    }
  });

  it('stops reading an answer past its size limit: an invalid response, warned, not retried', async () => {
    // Valid JSON of 9 MB: a base URL pointing at something else could send any size.
    fault.setDefault({ status: 200, body: { data: profile, padding: 'x'.repeat(9 * 1024 * 1024) } });
    const t = await lookup();
    const r = await t.client.profile('title_a', 'pc_store_a', 'x');
    expect(r.errors?.[0]).toMatchObject({ kind: 'invalid_response', message: `The stats service sent an answer larger than ${MAX_ANSWER_BYTES} bytes.` });
    expect(fault.requests).toHaveLength(1);
    expect(t.logs()).toContain('lookups are failing');
    await t.client.close();
    // The limit is the client's option; an answer within it is read as always.
    fault.setDefault({ status: 200, body: { data: profile } });
    const size = Buffer.byteLength(JSON.stringify({ data: profile }));
    const fits = await lookup({ maxAnswerBytes: size });
    expect((await fits.client.profile('title_a', 'pc_store_a', 'x')).data?.platformInfo).toEqual(profile.platformInfo);
    await fits.client.close();
    const over = await lookup({ maxAnswerBytes: size - 1 });
    expect((await over.client.profile('title_a', 'pc_store_a', 'x')).errors?.[0]?.kind).toBe('invalid_response');
    await over.client.close();
  });

  it('treats a connection closed in the middle of the body as unavailable', async () => {
    fault.setDefault({ truncate: true, text: '{"data":{"platformInfo"', declared: 5_000 });
    const { client } = await lookup({ maxAttempts: 2 });
    const r = await client.profile('title_a', 'pc_store_a', 'x');
    expect(r.errors?.[0]?.kind).toBe('unavailable');
    expect(fault.requests).toHaveLength(2);
    await client.close();
  });

  it('calls an HTML error page from a proxy unavailable by its status', async () => {
    fault.setDefault({ status: 502, text: '<html><h1>502 Bad Gateway</h1></html>' });
    const { client } = await lookup({ maxAttempts: 1 });
    expect((await client.profile('title_a', 'pc_store_a', 'x')).errors?.[0]).toMatchObject({
      kind: 'unavailable',
      status: 502,
      message: 'The stats service is unavailable. (HTTP 502)',
    });
    await client.close();
  });
});

describe('requests as sent', () => {
  it('encodes identifiers so that #, /, ?, %, spaces and unicode arrive intact', async () => {
    const { client } = await lookup();
    const ids = ['Nova#2231', 'a/b', 'what?x=1', '100%', 'two words', 'Ünïcødé名前', '..', '+plus&and='];
    for (const id of ids) await client.profile('title_c', 'pc_store_c', id);
    const arrived = fault.requests.map((r) => decodeURIComponent(r.url.split('/').at(-1) ?? ''));
    expect(arrived).toEqual(ids);
    expect(fault.requests[0]?.url).toBe('/v2/title_c/standard/profile/pc_store_c/Nova%232231');
    fault.requests.length = 0;
    fault.setDefault({ status: 200, body: { data: [] } });
    for (const q of ids) await client.search('title_c', 'pc_store_c', q);
    expect(fault.requests.map((r) => new URL(r.url, fault.url).searchParams.get('query'))).toEqual(ids);
    expect(new URL(fault.requests[0]!.url, fault.url).searchParams.get('platform')).toBe('pc_store_c');
    await client.close();
  });

  it('keeps a path prefix of the base URL', async () => {
    const { client } = await lookup({ baseUrl: `${fault.url}/stats/api/` });
    await client.segments('title_d', 'pc_store_a', 'x', 'map');
    expect(fault.requests[0]?.url).toBe('/stats/api/v2/title_d/standard/profile/pc_store_a/x/segments/map');
    await client.close();
  });

  it('sends the API key in TRN-Api-Key and nowhere else: not in logs, cache keys or errors', async () => {
    const key = 'sk-very-secret-4242';
    const stored: string[] = [];
    const memory = await createLookupCache();
    const recording: LookupCache = {
      get: (k) => memory.get(k),
      set: (k, v, ttl) => {
        stored.push(k, JSON.stringify(v));
        return memory.set(k, v, ttl);
      },
      healthy: true,
      close: () => memory.close(),
    };
    const t = await lookup({ apiKey: key, cache: recording });
    fault.script(
      { status: 200, body: { data: profile } },
      { status: 401, body: { message: `Invalid API key ${key}` } },
      { status: 404, body: { errors: [{ code: 'CollectorResultStatus::NotFound', message: 'no', data: { echoed: key } }] } },
    );
    await t.client.profile('title_a', 'pc_store_a', 'x');
    const refused = await t.client.profile('title_a', 'pc_store_a', 'y');
    const missing = await t.client.profile('title_a', 'pc_store_a', 'z');
    expect(fault.requests.every((r) => r.headers['trn-api-key'] === key)).toBe(true);
    expect(JSON.stringify(refused)).not.toContain(key);
    expect(refused.errors?.[0]?.message).toBe('Invalid API key [redacted]');
    expect(JSON.stringify(missing)).not.toContain(key);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.join('\n')).not.toContain(key);
    expect(t.logs()).toContain('lookup');
    expect(t.logs()).not.toContain(key);
    await t.client.close();
  });
});

describe('a base URL with a user and password (a proxy in front of the service)', () => {
  it('sends them as Basic authorization, and never echoes the password', async () => {
    const password = 'proxy pass:wörd';
    const base = new URL(fault.url);
    base.username = 'proxyuser';
    base.password = password;
    const t = await lookup({ baseUrl: base.href });
    fault.script({ status: 200, body: { data: profile } }, { status: 401, body: { message: `Bad credentials for proxyuser:${password}` } });
    await t.client.profile('title_a', 'pc_store_a', 'x');
    const refused = await t.client.profile('title_a', 'pc_store_a', 'y');
    expect(fault.requests.map((r) => r.headers.authorization)).toEqual(Array(2).fill(`Basic ${Buffer.from(`proxyuser:${password}`).toString('base64')}`));
    expect(refused.errors?.[0]?.message).toBe('Bad credentials for proxyuser:[redacted]');
    expect(t.logs()).not.toContain('wörd');
    expect(t.logs()).not.toContain(base.password);
    await t.client.close();
  });

  it('sends no authorization without them', async () => {
    const { client } = await lookup();
    fault.script({ status: 200, body: { data: profile } });
    await client.profile('title_a', 'pc_store_a', 'x');
    expect(fault.requests[0]?.headers.authorization).toBeUndefined();
    await client.close();
  });
});

describe('single flight and cache', () => {
  it('makes exactly one request for 100 simultaneous lookups of the same profile', async () => {
    fault.setDefault({ status: 200, body: { data: profile }, delayMs: 50 });
    const { client } = await lookup();
    const results = await Promise.all(Array.from({ length: 100 }, () => client.profile('title_a', 'pc_store_a', 'Ash')));
    expect(fault.requests).toHaveLength(1);
    expect(results.every((r) => r.data?.platformInfo.platformUserHandle === 'Ash')).toBe(true);
    expect(client.stats).toMatchObject({ requests: 1, joined: 99 });
    await client.close();
  });

  it('keeps a payload fresh until its expiryDate', async () => {
    const expiry = new Date(Date.now() + 60_000).toISOString();
    fault.setDefault({ status: 200, body: { data: { ...profile, expiryDate: expiry } } });
    const t = await lookup();
    await t.client.profile('title_a', 'pc_store_a', 'x');
    t.advance(55_000);
    expect((await t.client.profile('title_a', 'pc_store_a', 'x')).meta.source).toBe('cache');
    t.advance(10_000);
    expect((await t.client.profile('title_a', 'pc_store_a', 'x')).meta.source).toBe('network');
    expect(fault.requests).toHaveLength(2);
    await t.client.close();
  });

  it('keeps search results a minute and match reports a day', async () => {
    fault.setDefault({ status: 200, body: { data: [] } });
    const t = await lookup();
    await t.client.search('title_c', 'pc_store_c', 'a');
    t.advance(59_000);
    expect((await t.client.search('title_c', 'pc_store_c', 'a')).meta.source).toBe('cache');
    t.advance(2_000);
    expect((await t.client.search('title_c', 'pc_store_c', 'a')).meta.source).toBe('network');
    await t.client.close();
  });

  it('serves a recently expired entry, marked stale with its age, when the service is down or busy', async () => {
    const t = await lookup({ maxAttempts: 1 });
    const expiry = new Date(Date.now() + 60_000).toISOString();
    fault.script({ status: 200, body: { data: { ...profile, expiryDate: expiry } } });
    const fresh = await t.client.profile('title_a', 'pc_store_a', 'x');
    t.advance(10 * 60_000);
    // The 429 last: its Retry-After holds back what follows.
    for (const failure of [
      { status: 503, text: 'down' },
      { close: true as const },
      { status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'retry-after': '60' } },
    ]) {
      fault.script(failure);
      const r = await t.client.profile('title_a', 'pc_store_a', 'x');
      expect(r.meta.source).toBe('stale');
      expect(r.meta.ageMs).toBeGreaterThanOrEqual(10 * 60_000);
      expect(r.meta.fetchedAt).toBe(fresh.meta.fetchedAt);
      expect(r.data).toEqual(fresh.data);
      expect(r.meta.staleBecause?.kind).toMatch(/unavailable|rate_limited/);
    }
    expect(t.client.stats.staleServed).toBe(3);
    t.advance(60_000);
    // A definite answer is not hidden behind stale data.
    fault.script({ status: 404, body: { errors: [{ code: 'CollectorResultStatus::NotFound', message: 'gone', data: {} }] } });
    expect((await t.client.profile('title_a', 'pc_store_a', 'x')).errors?.[0]?.kind).toBe('not_found');
    await t.client.close();
  });

  it('does not serve stale data older than the stale window', async () => {
    const t = await lookup({ maxAttempts: 1, staleWindowMs: 60_000 });
    fault.script({ status: 200, body: { data: { ...profile, expiryDate: new Date(Date.now() + 10_000).toISOString() } } });
    await t.client.profile('title_a', 'pc_store_a', 'x');
    fault.setDefault({ status: 503, text: 'down' });
    t.advance(10_000 + 59_000);
    expect((await t.client.profile('title_a', 'pc_store_a', 'x')).meta.source).toBe('stale');
    t.advance(2_000);
    const r = await t.client.profile('title_a', 'pc_store_a', 'x');
    expect(r.meta.source).toBe('network');
    expect(r.errors?.[0]?.kind).toBe('unavailable');
    await t.client.close();
  });

  it('remembers a private player briefly, like a missing one, then asks again', async () => {
    fault.setDefault({ status: 451, body: { errors: [{ code: 'CollectorResultStatus::Private', message: 'This profile is still private.' }] } });
    const t = await lookup();
    const first = await t.client.profile('title_a', 'pc_store_a', 'hidden');
    expect(first.errors?.[0]?.kind).toBe('private');
    for (let i = 0; i < 5; i++) {
      const again = await t.client.profile('title_a', 'pc_store_a', 'hidden');
      expect(again.errors?.[0]).toMatchObject({ kind: 'private', status: 451, message: 'This profile is still private.' });
      expect(again.meta.source).toBe('cache');
    }
    expect(fault.requests).toHaveLength(1);
    t.advance(DEFAULT_TTL_MS.private);
    expect((await t.client.profile('title_a', 'pc_store_a', 'hidden')).meta.source).toBe('network');
    expect(fault.requests).toHaveLength(2);
    await t.client.close();
  });

  it('re-validates cached entries with the schema and refetches those that no longer fit', async () => {
    const memory = await createLookupCache();
    const keys: string[] = [];
    const cache: LookupCache = {
      get: (k) => memory.get(k),
      set: (k, v, ttl) => (keys.push(k), memory.set(k, v, ttl)),
      healthy: true,
      close: () => memory.close(),
    };
    const t = await lookup({ cache });
    await t.client.profile('title_a', 'pc_store_a', 'x');
    await memory.set(keys[0]!, { v: 1, fetchedAt: Date.now(), freshUntil: Date.now() + 600_000, payload: { platformInfo: 'tampered' } }, 600_000);
    const r = await t.client.profile('title_a', 'pc_store_a', 'x');
    expect(r.meta.source).toBe('network');
    expect(r.data?.platformInfo.platformUserHandle).toBe('Ash');
    expect(fault.requests).toHaveLength(2);
    expect(t.logs()).toContain('no longer fits its schema');
    await t.client.close();
  });
});

describe('what the operator hears', () => {
  const warnings = (logs: string) =>
    logs
      .split('\n')
      .filter((l) => l.includes('lookups are failing'))
      .map((l) => JSON.parse(l) as { level: number; kind: string; status: number | null; alikeLeftOut: number; endpoint: string });

  it('warns of a refused key at most once a minute a kind, counting those it left out, and never of a missing player', async () => {
    fault.setDefault({ status: 401, body: { message: 'Invalid authentication credentials' } });
    const t = await lookup({ apiKey: 'sekrit-api-key-123' });
    for (const id of ['a', 'b', 'c']) expect((await t.client.profile('title_a', 'pc_store_a', id)).errors?.[0]?.kind).toBe('unauthorized');
    let w = warnings(t.logs());
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ level: 40, kind: 'unauthorized', status: 401, endpoint: 'title_a.profile', alikeLeftOut: 0 });
    // Another kind is told at once; the first kind again only once its minute is past.
    fault.setDefault({ status: 503, body: { errors: [{ code: 'Internal', message: 'down' }] } });
    await t.client.profile('title_a', 'pc_store_a', 'd');
    fault.setDefault({ status: 401, body: { message: 'Invalid authentication credentials' } });
    t.advance(FAILURE_WARNING_INTERVAL_MS);
    await t.client.profile('title_a', 'pc_store_a', 'e');
    w = warnings(t.logs());
    expect(w.map((x) => [x.kind, x.alikeLeftOut])).toEqual([
      ['unauthorized', 0],
      ['unavailable', 0],
      ['unauthorized', 2],
    ]);
    fault.setDefault({ status: 404, body: { errors: [{ code: 'CollectorResultStatus::NotFound', message: 'no such player' }] } });
    await t.client.profile('title_a', 'pc_store_a', 'f');
    expect(warnings(t.logs())).toHaveLength(3);
    expect(t.logs()).not.toContain('sekrit-api-key-123');
    await t.client.close();
  });
});
