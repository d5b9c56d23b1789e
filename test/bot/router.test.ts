// The router's ways of telling the user, with the real WebhookAnswer and the real commands: what it
// does when Discord refuses an answer, when a deferred command fails, and what it echoes when an
// autocomplete cannot answer. Discord itself is the function that takes the first answer (a
// refusal is a DiscordAPIError, as discord.js makes it) and a REST object that records the rest.
import { DiscordAPIError, type REST } from 'discord.js';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { StoreUnavailableError, type Deps } from '../../commands/index.js';
import { AnswerDeadlineError } from '../../src/bot/answer-deadline.js';
import { MAX_INFLIGHT, Router, type Incoming } from '../../src/bot/router.js';
import { WebhookAnswer, type FirstAnswer } from '../../src/bot/webhook-answer.js';
import { StatsProfileSchema } from '../../src/lookup/schemas.js';
import { minimalProfile } from '../fixtures/real-shapes.js';

const EPHEMERAL = 64;
const OWNER = '1180000000000000401';

interface Recorded {
  /** When each first answer went out (performance.now()). */
  firstAt: number[];
  first: { type: number; data?: { content?: string; flags?: number; choices?: { name: string; value: string | number }[] } }[];
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

const input = (name: string, options: Record<string, string> = {}) => ({
  name,
  group: null,
  subcommand: null,
  options,
  userId: '1180000000000000401',
  locale: 'en-US',
});

let lastId = 1180000000000000000n;
/** An interaction of its own id, made `ageMs` ago. */
function incoming(action: Incoming['action'], answer: WebhookAnswer, ageMs = 0): Incoming {
  return { id: String(++lastId), type: action.kind === 'autocomplete' ? 4 : 2, createdTimestamp: Date.now() - ageMs, action, answer };
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

  it('tells no one more when Discord’s REST did not take an answer in time: the interaction ends with its deadline', async () => {
    const { logger, lines } = memoryLog();
    const rest: { method: string }[] = [];
    const late = (method: string) => () => {
      rest.push({ method });
      return Promise.reject(new AnswerDeadlineError("deleting the answer: Discord's REST API did not take it within 30 s"));
    };
    const restDouble = { patch: late('PATCH'), post: late('POST'), delete: late('DELETE') } as unknown as REST;
    const answer = new WebhookAnswer(() => Promise.resolve(), true, restDouble, '1180000000000000001', 'token');
    // No link, read after the reply budget: a private notice, after the public "thinking…" is taken away.
    const links = { get: () => new Promise((resolve) => setTimeout(() => resolve(undefined), 1_000)) };
    await new Router({ logger, links } as unknown as Deps, logger).handle(
      incoming({ kind: 'command', input: { ...input('stats'), group: 'title_c', subcommand: 'profile' } }, answer),
    );
    // The delete failed at its deadline; no follow-up tried after it (another deadline, on the same token).
    expect(rest.map((r) => r.method)).toEqual(['DELETE']);
    expect(lines.find((l) => l.msg === 'interaction failed')).toMatchObject({
      err: { message: expect.stringContaining('did not take it within 30 s') as unknown },
    });
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
    void new Router(deps, logger).handle(
      incoming({ kind: 'component', customId: 'pg:abc:0', values: undefined, userId: OWNER, locale: 'en-US', messageOwnerId: OWNER }, answer),
    );
    for (let i = 0; i < 100 && seen.firstAt.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(seen.first.map((b) => b.type)).toEqual([6]);
    // Deferred when the budget (0.8 s) was spent on the read, not 0.8 s after it (1.7 s).
    expect(seen.firstAt[0]! - started).toBeLessThan(1_300);
  });

  describe('a press whose view is slow to read (a store near its timeout)', () => {
    const OTHER = '1180000000000000402';
    const view = { kind: 'profile', title: 'title_c', platform: 'console_a', player: 'Minimo', ownerId: OWNER };
    const profile = StatsProfileSchema.parse(minimalProfile());
    /** A router whose view store answers after `readMs` (with `stored`; null: expired) and saves a copy after `saveMs`. */
    const pressWith = async (press: { userId: string; messageOwnerId?: string }, stored: unknown = view, readMs = 1_000, saveMs = 1_000) => {
      const { logger } = memoryLog();
      const { answer, seen } = answerRecorded();
      let readAt = 0;
      const views = {
        load: () => new Promise((resolve) => setTimeout(() => resolve(((readAt = performance.now()), stored)), readMs)),
        save: () => new Promise((resolve) => setTimeout(() => resolve('copy'), saveMs)),
      };
      const lookup = { profile: () => Promise.resolve({ data: profile, meta: { source: 'cache', fetchedAt: Date.now(), ageMs: 0 } }) };
      const links = { get: () => Promise.resolve(undefined) };
      const deps = { logger, views, lookup, links } as unknown as Deps;
      const started = performance.now();
      const outcome = await new Router(deps, logger).handle(
        incoming({ kind: 'component', customId: 'pg:abc:0', values: undefined, locale: 'en-US', ...press }, answer),
      );
      return { seen, started, readAt, outcome };
    };

    it("acknowledges the owner's press as an update before the view is read, then edits the message in", async () => {
      const { seen, started, readAt } = await pressWith({ userId: OWNER, messageOwnerId: OWNER });
      expect(seen.first.map((b) => b.type)).toEqual([6]);
      expect(seen.firstAt[0]!).toBeLessThan(readAt);
      expect(seen.firstAt[0]! - started).toBeLessThan(1_000);
      expect(seen.rest.map((c) => [c.method, c.route.endsWith('/messages/%40original')])).toEqual([['PATCH', true]]);
      expect(JSON.stringify(seen.rest[0]!.body)).toContain('Minimo');
    }, 10_000);

    it("acknowledges another's press privately before the view is read and its copy saved (2 s), then shows them their own copy there", async () => {
      const { seen, started, readAt } = await pressWith({ userId: OTHER, messageOwnerId: OWNER });
      expect(seen.first.map((b) => [b.type, b.data?.flags])).toEqual([[5, EPHEMERAL]]);
      expect(seen.firstAt[0]!).toBeLessThan(readAt);
      expect(seen.firstAt[0]! - started).toBeLessThan(1_000);
      // The owner's message is not touched: the private "thinking…" is edited into the copy.
      expect(seen.rest.map((c) => c.method)).toEqual(['PATCH']);
      expect(JSON.stringify(seen.rest[0]!.body)).toContain('Minimo');
    }, 10_000);

    it("takes the owner's press on a message that does not say whose it is privately, and still answers it", async () => {
      const { seen } = await pressWith({ userId: OWNER });
      expect(seen.first.map((b) => [b.type, b.data?.flags])).toEqual([[5, EPHEMERAL]]);
      expect(seen.rest.map((c) => c.method)).toEqual(['PATCH']);
      expect(JSON.stringify(seen.rest[0]!.body)).toContain('Minimo');
    }, 10_000);

    it('tells the presser alone when the slow view turns out to have expired', async () => {
      const owner = await pressWith({ userId: OWNER, messageOwnerId: OWNER }, null);
      expect(owner.seen.first.map((b) => b.type)).toEqual([6]);
      // After an update's defer the notice follows, private; the message stays as it was.
      expect(owner.seen.rest.map((c) => c.method)).toEqual(['POST']);
      expect(owner.seen.rest[0]!.body).toMatchObject({ flags: EPHEMERAL, content: expect.stringContaining('expired') as unknown });
      const other = await pressWith({ userId: OTHER, messageOwnerId: OWNER }, null);
      // The private "thinking…" becomes the notice.
      expect(other.seen.rest.map((c) => c.method)).toEqual(['PATCH']);
      expect(JSON.stringify(other.seen.rest[0]!.body)).toContain('expired');
    }, 10_000);

    it('turns another\'s private "thinking…" into the notice when the slow store then fails, leaving nothing standing', async () => {
      const { logger } = memoryLog();
      const { answer, seen } = answerRecorded();
      const views = { load: () => new Promise((_, reject) => setTimeout(() => reject(new StoreUnavailableError('store.viewsUnreadable')), 1_000)) };
      const deps = { logger, views } as unknown as Deps;
      await new Router(deps, logger).handle(
        incoming({ kind: 'component', customId: 'pg:abc:0', values: undefined, userId: OTHER, locale: 'en-US', messageOwnerId: OWNER }, answer),
      );
      expect(seen.first.map((b) => [b.type, b.data?.flags])).toEqual([[5, EPHEMERAL]]);
      expect(seen.rest.map((c) => c.method)).toEqual(['PATCH']);
      expect(answer.thinkingPrivately).toBe(false);
    }, 10_000);

    it('answers as before, within the budget, when the view is read in time', async () => {
      const { seen } = await pressWith({ userId: OWNER, messageOwnerId: OWNER }, view, 10);
      // The update itself is the first answer (type 7): nothing deferred.
      expect(seen.first.map((b) => b.type)).toEqual([7]);
      expect(seen.rest).toEqual([]);
    });
  });

  it('echoes what was typed only as it was typed, and only when it fits a choice', async () => {
    const { logger } = memoryLog();
    const choicesFor = async (value: string) => {
      const { answer, seen } = answerRecorded();
      // A command the router does not know: the echo is all it can offer.
      await new Router({ logger } as unknown as Deps, logger).handle(
        incoming({ kind: 'autocomplete', input: { ...input('nope'), focused: { name: 'player', value } } }, answer),
      );
      return seen.first[0]!.data?.choices;
    };
    const emoji = '😀'.repeat(50);
    expect(await choicesFor(emoji)).toEqual([{ name: emoji, value: emoji }]);
    expect(await choicesFor('a'.repeat(101))).toEqual([]);
    expect(await choicesFor('Nova')).toEqual([{ name: 'Nova', value: 'Nova' }]);
    // A name is shown without bidi and control characters; the value stays as typed, and a choice
    // with nothing left to show is not offered (Discord would refuse every choice for it).
    expect(await choicesFor('Quil\u202Eregdab')).toEqual([{ name: 'Quilregdab', value: 'Quil\u202Eregdab' }]);
    expect(await choicesFor('\u202E\u2066')).toEqual([]);
  });

  it('sends an integer option’s choices as numbers, and none that is not one (Discord refuses the whole answer for it)', async () => {
    const { logger } = memoryLog();
    const choicesFor = async (value: string) => {
      const { answer, seen } = answerRecorded();
      await new Router({ logger } as unknown as Deps, logger).handle(
        incoming({ kind: 'autocomplete', input: { ...input('nope'), focused: { name: 'season', value, numeric: true } } }, answer),
      );
      return seen.first[0]!.data?.choices;
    };
    expect(await choicesFor('3')).toEqual([{ name: '3', value: 3 }]);
    expect(await choicesFor('three')).toEqual([]);
  });
});

describe('the router’s bound on interactions in flight', () => {
  it('skips an interaction past MAX_INFLIGHT unanswered, counted and logged once, and takes new ones as the others end', async () => {
    const { logger, lines } = memoryLog();
    // Every command waits on a linked account that does not come until the test lets it.
    let release!: () => void;
    const held = new Promise<undefined>((resolve) => (release = () => resolve(undefined)));
    const deps = { logger, links: { get: () => held } } as unknown as Deps;
    const router = new Router(deps, logger);
    const profile = { ...input('stats'), group: 'title_c', subcommand: 'profile' };
    const running = Array.from({ length: MAX_INFLIGHT }, () => router.handle(incoming({ kind: 'command', input: profile }, answerRecorded().answer)));
    expect(router.busy).toBe(MAX_INFLIGHT);
    const past = answerRecorded();
    await router.handle(incoming({ kind: 'command', input: profile }, past.answer));
    expect(past.seen.first).toHaveLength(0);
    expect(router.counts.tooLate).toBe(1);
    expect(lines.filter((l) => String(l.msg).startsWith('interactions skipped'))).toMatchObject([{ level: 40, skipped: 1, why: `${MAX_INFLIGHT} in flight` }]);
    release();
    await Promise.all(running);
    expect(router.busy).toBe(0);
    const after = answerRecorded();
    await router.handle(incoming({ kind: 'command', input: profile }, after.answer));
    expect(after.seen.first).toHaveLength(1);
  }, 20_000);
});

describe('the router and interactions that come again or come late', () => {
  afterEach(() => vi.useRealTimers());

  it('runs an interaction once: the same id again is told `replayed` and answered nothing', async () => {
    const { logger, lines } = memoryLog();
    const router = new Router({ logger } as unknown as Deps, logger);
    const first = answerRecorded();
    const once = incoming({ kind: 'command', input: input('nope') }, first.answer);
    expect(await router.handle(once)).toBe('handled');
    const again = answerRecorded();
    expect(await router.handle({ ...once, answer: again.answer })).toBe('replayed');
    expect(again.seen.first).toEqual([]);
    expect(router.counts).toMatchObject({ commands: 1, replayed: 1 });
    expect(lines.find((l) => l.msg === 'an interaction taken before came again: nothing was run')).toMatchObject({ level: 40, interaction: once.id });
  });

  it('does not learn from one old interaction after a quiet minute that old is on time', async () => {
    // Only the wall clock is the test's: the minute of quiet passes at once.
    vi.useFakeTimers({ toFake: ['Date'] });
    const { logger } = memoryLog();
    const router = new Router({ logger } as unknown as Deps, logger);
    const fresh = answerRecorded();
    expect(await router.handle(incoming({ kind: 'command', input: input('nope') }, fresh.answer))).toBe('handled');
    vi.setSystemTime(Date.now() + 90_000);
    // Made four minutes ago (a copy kept since, never sent here before): too late to answer.
    const old = answerRecorded();
    expect(await router.handle(incoming({ kind: 'command', input: input('nope') }, old.answer, 4 * 60_000))).toBe('skipped');
    expect(old.seen.first).toEqual([]);
    // What is on time still is.
    const next = answerRecorded();
    expect(await router.handle(incoming({ kind: 'command', input: input('nope') }, next.answer))).toBe('handled');
  });

  it('learns a host clock that jumped ahead by the end of the next window', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { logger } = memoryLog();
    const router = new Router({ logger } as unknown as Deps, logger);
    expect(await router.handle(incoming({ kind: 'command', input: input('nope') }, answerRecorded().answer))).toBe('handled');
    // The host's clock now runs 10 s ahead of Discord's: every interaction looks 10 s old.
    const ahead = 10_000;
    vi.setSystemTime(Date.now() + 90_000);
    expect(await router.handle(incoming({ kind: 'command', input: input('nope') }, answerRecorded().answer, ahead))).toBe('skipped');
    vi.setSystemTime(Date.now() + 61_000);
    expect(await router.handle(incoming({ kind: 'command', input: input('nope') }, answerRecorded().answer, ahead))).toBe('handled');
  });
});
