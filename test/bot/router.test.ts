// The router's ways of telling the user, with the real WebhookAnswer and the real commands: what it
// does when Discord refuses an answer, when a deferred command fails, and what it echoes when an
// autocomplete cannot answer. Discord itself is the function that takes the first answer (a
// refusal is a DiscordAPIError, as discord.js makes it) and a REST object that records the rest.
import { DiscordAPIError, type REST } from 'discord.js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

import { StoreUnavailableError, type Deps } from '../../commands/index.js';
import { Router, type Incoming } from '../../src/bot/router.js';
import { WebhookAnswer, type FirstAnswer } from '../../src/bot/webhook-answer.js';

const EPHEMERAL = 64;
const OWNER = '1180000000000000401';

interface Recorded {
  /** When each first answer went out (performance.now()). */
  firstAt: number[];
  first: { type: number; data?: { content?: string; flags?: number; choices?: { name: string; value: string }[] } }[];
  rest: { method: string; route: string; body?: unknown }[];
}

/** A WebhookAnswer whose first answers go to `first` (refusing the first `refusals`), its REST calls recorded. */
function answerRecorded(refusals = 0): { answer: WebhookAnswer; seen: Recorded } {
  const seen: Recorded = { firstAt: [], first: [], rest: [] };
  let refused = 0;
  const first: FirstAnswer = (body) => {
    if (refused++ < refusals) {
      return Promise.reject(new DiscordAPIError({ code: 50035, message: 'Invalid Form Body' }, 50035, 400, 'POST', '/interactions/1/t/callback', { body }));
    }
    seen.first.push(body as Recorded['first'][number]);
    seen.firstAt.push(performance.now());
    return Promise.resolve();
  };
  const record = (method: string) => (route: string, options?: { body?: unknown }) => {
    seen.rest.push({ method, route, body: options?.body });
    return Promise.resolve(undefined);
  };
  const rest = { patch: record('PATCH'), post: record('POST'), delete: record('DELETE') } as unknown as REST;
  return { answer: new WebhookAnswer(first, true, rest, '1180000000000000001', 'token'), seen };
}

/** A log kept in memory, read back as lines. */
function memoryLog() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

const input = (name: string, options: Record<string, string> = {}) => ({ name, group: null, subcommand: null, options, userId: '1180000000000000401', locale: 'en-US' });

function incoming(action: Incoming['action'], answer: WebhookAnswer): Incoming {
  return { id: '1180000000000000999', type: action.kind === 'autocomplete' ? 4 : 2, createdTimestamp: Date.now(), action, answer };
}

describe('the router', () => {
  it('tells the user with a notice when Discord refuses the first answer, and logs both', async () => {
    const { logger, lines } = memoryLog();
    const { answer, seen } = answerRecorded(1);
    // An unknown command is answered with a notice: the first attempt is refused, the second goes.
    await new Router({ logger } as unknown as Deps, logger).handle(incoming({ kind: 'command', input: input('nope') }, answer));
    expect(seen.first).toHaveLength(1);
    expect(seen.first[0]!.type).toBe(4);
    expect(seen.first[0]!.data?.flags).toBe(EPHEMERAL);
    expect(answer.acknowledged).toBe(true);
    expect(lines.some((l) => l.msg === 'interaction failed')).toBe(true);
  });

  it('says so in the log when even the notice cannot be sent', async () => {
    const { logger, lines } = memoryLog();
    const { answer, seen } = answerRecorded(2);
    await new Router({ logger } as unknown as Deps, logger).handle(incoming({ kind: 'command', input: input('nope') }, answer));
    expect(seen.first).toHaveLength(0);
    const told = lines.find((l) => l.msg === 'could not tell the user that the interaction failed');
    expect(told).toMatchObject({ level: 40, code: 50035 });
  });

  it('takes away a public "thinking…" when a deferred command then fails, and tells the user alone', async () => {
    const { logger } = memoryLog();
    const { answer, seen } = answerRecorded();
    // The linked account is read after the reply budget, then the store gives up.
    const links = {
      get: () => new Promise((_, reject) => setTimeout(() => reject(new StoreUnavailableError('store.linksUnreadable')), 1_000)),
    };
    const deps = { logger, links } as unknown as Deps;
    await new Router(deps, logger).handle(incoming({ kind: 'command', input: { ...input('stats'), group: 'title_c', subcommand: 'profile' } }, answer));
    expect(seen.first.map((b) => [b.type, b.data?.flags ?? 0])).toEqual([[5, 0]]);
    expect(seen.rest.map((c) => c.method)).toEqual(['DELETE', 'POST']);
    expect(seen.rest[0]!.route).toMatch(/\/messages\/%40original$/);
    expect((seen.rest[1]!.body as { flags?: number }).flags).toBe(EPHEMERAL);
    expect(answer.placeholder).toBe(false);
  }, 10_000);

  it('counts the time a press spent reading its view against the reply budget, and defers at once when it is spent', async () => {
    const { logger } = memoryLog();
    const { answer, seen } = answerRecorded();
    // The view takes 900 ms to read (a slow store), and its lookup never answers.
    const view = { kind: 'profile', title: 'title_c', platform: 'console_a', player: 'Nova', ownerId: OWNER };
    const views = { load: () => new Promise((resolve) => setTimeout(() => resolve(view), 900)), save: () => Promise.resolve('x') };
    const lookup = { profile: () => new Promise(() => {}) };
    const deps = { logger, views, lookup } as unknown as Deps;
    const started = performance.now();
    void new Router(deps, logger).handle(incoming({ kind: 'component', customId: 'pg:abc:0', values: undefined, userId: OWNER, locale: 'en-US' }, answer));
    for (let i = 0; i < 100 && seen.firstAt.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(seen.first.map((b) => b.type)).toEqual([6]);
    // Deferred when the budget (0.8 s) was spent on the read, not 0.8 s after it (1.7 s).
    expect(seen.firstAt[0]! - started).toBeLessThan(1_300);
  });

  it('echoes what was typed only as it was typed, and only when it fits a choice', async () => {
    const { logger } = memoryLog();
    const choicesFor = async (value: string) => {
      const { answer, seen } = answerRecorded();
      // A command the router does not know: the echo is all it can offer.
      await new Router({ logger } as unknown as Deps, logger).handle(incoming({ kind: 'autocomplete', input: { ...input('nope'), focused: { name: 'player', value } } }, answer));
      return seen.first[0]!.data?.choices;
    };
    const emoji = '😀'.repeat(50);
    expect(await choicesFor(emoji)).toEqual([{ name: emoji, value: emoji }]);
    expect(await choicesFor('a'.repeat(101))).toEqual([]);
    expect(await choicesFor('Nova')).toEqual([{ name: 'Nova', value: 'Nova' }]);
  });
});
