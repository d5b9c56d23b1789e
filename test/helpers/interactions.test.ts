// When the helpers that wait on the double take an interaction as answered: a reply at once, or a
// deferral (of a message, or of a component press's update) once its edit or follow-up came.
import { describe, expect, it } from 'vitest';

import type { RestCall } from '../discord-double/index.js';
import { isFinal } from './interactions.js';

const WEBHOOK = '/webhooks/1/token';
const call = (method: string, path: string, body: unknown): RestCall => ({
  method,
  path,
  rawPath: path,
  query: {},
  headers: {},
  body,
  at: 0,
  status: 200,
  files: [],
});
const callback = (type: number) => call('POST', '/interactions/1/token/callback', { type, ...(type === 4 ? { data: { content: 'hi' } } : {}) });
const edit = call('PATCH', `${WEBHOOK}/messages/@original`, { content: 'edited' });
const followUp = call('POST', WEBHOOK, { content: 'told', flags: 64 });

describe('isFinal', () => {
  it('takes a reply (type 4) as the final answer', () => {
    expect(isFinal([callback(4)])).toBe(true);
  });

  it('waits after a deferred message (type 5) until its edit comes', () => {
    expect(isFinal([callback(5)])).toBe(false);
    expect(isFinal([callback(5), edit])).toBe(true);
  });

  it('waits after a press deferred as an update (type 6) until its edit or follow-up comes', () => {
    expect(isFinal([callback(6)])).toBe(false);
    expect(isFinal([callback(6), edit])).toBe(true);
    expect(isFinal([callback(6), followUp])).toBe(true);
  });

  it('takes no answer as not final', () => {
    expect(isFinal([])).toBe(false);
  });
});
