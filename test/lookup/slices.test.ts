// Large answers read a list entry at a time must read exactly as the whole answer does (the same
// data, the same notes), leave the event loop free between slices, and hand anything the scanner
// is not sure of back to be read whole. The client takes the sliced path for large answers, over
// real HTTP.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { createLookupCache } from '../../src/lookup/cache.js';
import { LookupClient } from '../../src/lookup/client.js';
import { MatchResultSchema, SegmentListSchema, SessionListSchema, readPayload, type Degradation } from '../../src/lookup/schemas.js';
import { PAYLOAD_LISTS, SLICED_ANSWER_CHARS, SLICE_CHARS, readInSlices, scanList } from '../../src/lookup/slices.js';
import { fullSessions, minimalSessions } from '../fixtures/real-shapes.js';
import { turnCounter } from '../helpers/turns.js';

const ranges = (text: string, path: string[]) => {
  const scan = scanList(text, path);
  for (;;) {
    const step = scan.next();
    if (step.done) return step.value;
  }
};
const slices = (text: string, path: string[]) => ranges(text, path)?.entries.map(([a, b]) => text.slice(a, b));

const byField = (a: Degradation, b: Degradation) => (a.field + a.issue < b.field + b.issue ? -1 : 1);

/** The whole answer read as the client reads a small one. */
function readWhole(schema: Parameters<typeof readPayload>[0], text: string) {
  return readPayload(schema, (JSON.parse(text) as { data?: unknown }).data);
}

async function expectSame(schema: Parameters<typeof readPayload>[0], listed: NonNullable<(typeof PAYLOAD_LISTS)['SessionList']>, text: string) {
  const whole = readWhole(schema, text);
  const sliced = await readInSlices(text, schema, listed);
  expect(sliced).toBeDefined();
  expect(sliced?.success).toBe(whole.success);
  if (whole.success && sliced?.success) expect(sliced.data).toEqual(whole.data);
  // The notes are the same; their order is not (the list's are made after the rest's here).
  expect([...(sliced?.degraded ?? [])].sort(byField)).toEqual([...whole.degraded].sort(byField));
}

const sessions = PAYLOAD_LISTS.SessionList!;

describe('finding a list in a JSON text', () => {
  it('finds each entry of any kind, at any depth of the path, with any spacing', () => {
    expect(slices('{"data":{"items":[1, "a,]b\\"", {"x":[1,{"y":"]"}]}, [2,3], null, true]}}', ['data', 'items'])).toEqual([
      '1',
      '"a,]b\\""',
      '{"x":[1,{"y":"]"}]}',
      '[2,3]',
      'null',
      'true',
    ]);
    expect(slices('{ "meta" : {"items":[9]}, "data" :\n [ {"a":1} ,\t{"b":"\\\\"} ] }', ['data'])).toEqual(['{"a":1}', '{"b":"\\\\"}']);
    expect(slices('{"data":{"items":[]}}', ['data', 'items'])).toEqual([]);
    // A key written with an escape is the same key.
    expect(slices('{"data":{"\\u0069tems":[7]}}', ['data', 'items'])).toEqual(['7']);
  });

  it('gives up on what JSON.parse would read differently or refuse, and on a list that is not there', () => {
    for (const text of [
      '{"data":{"items":[1],"items":[2]}}', // JSON.parse takes the last
      '{"data":{"items":[1]},"data":{"items":[2]}}',
      '{"data":{"items":[1,]}}',
      '{"data":{"items":[1 2]}}',
      '{"data":{"items":[,1]}}',
      '{"data":{"items":[1,2',
      '{"data":{"items":{"a":1}}}',
      '{"data":{"items":null}}',
      '{"data":{"other":[1]}}',
      '{"data":{"items":["open]}}',
      '[{"data":{"items":[1]}}]',
    ])
      expect(ranges(text, ['data', 'items']), text).toBeUndefined();
  });
});

describe('a large answer read in slices', () => {
  it('reads the real-shaped sessions, their notes and an unreadable session as the whole answer does', async () => {
    await expectSame(SessionListSchema, sessions, JSON.stringify({ data: fullSessions() }));
    await expectSame(SessionListSchema, sessions, JSON.stringify({ data: minimalSessions() }, null, 2));
    const odd = {
      items: [7, { stats: { kills: { value: 'x' }, deaths: { value: 2 } }, matches: 'none' }, ...(fullSessions() as { items: unknown[] }).items],
      expiryDate: 'never',
    };
    const text = JSON.stringify({ data: odd });
    expect(readWhole(SessionListSchema, text).degraded.length).toBeGreaterThan(2);
    await expectSame(SessionListSchema, sessions, text);
  });

  it('reads any answer of the right shape as the whole answer does (match lists and segment lists too)', async () => {
    const entry = fc.oneof(
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
      { weight: 4, arbitrary: fc.constantFrom(...(fullSessions() as { items: unknown[] }).items) },
      {
        weight: 2,
        arbitrary: fc.record({ stats: fc.dictionary(fc.string({ maxLength: 4 }), fc.record({ value: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })) })) }),
      },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), fc.constantFrom(0, 1, 2), async (items, extra, indent) => {
        await expectSame(SessionListSchema, sessions, JSON.stringify({ data: { items, expiryDate: null, extra } }, null, indent));
        await expectSame(MatchResultSchema, PAYLOAD_LISTS.MatchResult!, JSON.stringify({ data: { matches: items, metadata: { next: null } } }, null, indent));
        await expectSame(SegmentListSchema, PAYLOAD_LISTS['Segment[]']!, JSON.stringify({ data: items }, null, indent));
      }),
      { numRuns: 150 },
    );
  });

  it('lets the event loop run between slices of a large answer', async () => {
    const session = (fullSessions() as { items: unknown[] }).items[0];
    const text = JSON.stringify({ data: { items: Array.from({ length: 400 }, () => session), expiryDate: null } });
    expect(text.length).toBeGreaterThan(2 * SLICED_ANSWER_CHARS);
    const turns = turnCounter();
    const read = await readInSlices(text, SessionListSchema, sessions);
    turns.stop();
    expect(read?.success && read.data.items.length).toBe(400);
    // A turn for each slice scanned, and one for each slice of entries read.
    expect(turns.now()).toBeGreaterThanOrEqual(2 * Math.floor(text.length / SLICE_CHARS) - 1);
  });

  it('hands back what it cannot read for the whole read to decide', async () => {
    expect(await readInSlices('{"data":{"items":[{"a":1},{"b":}]}}', SessionListSchema, sessions)).toBeUndefined();
    expect(await readInSlices('{"data":{"items":[]},}', SessionListSchema, sessions)).toBeUndefined();
    expect(await readInSlices('{"data":{"items":"no"}}', SessionListSchema, sessions)).toBeUndefined();
  });
});

describe('the lookup client with a large answer', () => {
  it('reads a large sessions answer over HTTP as it reads it whole, and a large broken one as not JSON', async () => {
    const items = Array.from({ length: 300 }, () => (fullSessions() as { items: unknown[] }).items[0]);
    const good = JSON.stringify({ data: { items, expiryDate: null } });
    const broken = `${good.slice(0, -20)}}`;
    expect(good.length).toBeGreaterThan(SLICED_ANSWER_CHARS);
    const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(req.url?.includes('broken') ? broken : good));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const cache = await createLookupCache();
    const client = new LookupClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, cache, maxAttempts: 1 });
    try {
      const answer = await client.sessions('title_b', 'pc_store_b', 'busy');
      const whole = readWhole(SessionListSchema, good);
      expect(answer.errors).toBeUndefined();
      expect(whole.success && answer.data).toEqual(whole.success && whole.data);
      const bad = await client.sessions('title_b', 'pc_store_b', 'broken');
      expect(bad.errors?.[0]).toMatchObject({ kind: 'invalid_response' });
    } finally {
      await client.close();
      await cache.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
