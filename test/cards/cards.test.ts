// Cards: the model chosen by meaning, the PNG the worker pool draws (decodes, its size, not blank,
// like the golden image), the cache, and every way drawing can fail falling back to the text reply.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';

import { pino } from 'pino';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';

import {
  CARD_FILE,
  CARD_HEIGHT,
  CARD_WIDTH,
  compareCard,
  createCardRenderer,
  drawable,
  profileCard,
  sessionCard,
  withCard,
  WORKER_START_MS,
  type CardRendererOptions,
  type CompareCardModel,
  type ProfileCardModel,
  type SessionCardModel,
} from '../../src/cards/index.js';
import { cardLayout, compareHeight } from '../../src/cards/layout.js';
import { isDrawable } from '../../src/cards/fonts.js';
import { nodeOwnThreads, v8PoolSize } from '../../src/cards/node-threads.js';
import { embedReply } from '../../src/embeds/index.js';
import { SessionListSchema, StatsProfileSchema } from '../../src/lookup/schemas.js';
import { fullTitleBProfile, fullTitleDProfile } from '../fixtures/real-shapes.js';
import { smallLines } from '../fixtures/small-dataset.js';
import { startService } from '../helpers/service.js';

/**
 * A renderer for the tests that do not test its deadline: a card has as long as a worker may take to
 * start, so that a busy machine (the suite's files run side by side) makes no card late.
 */
const unhurried = (options: CardRendererOptions = {}) => createCardRenderer({ deadlineMs: WORKER_START_MS, ...options });

const renderer = unhurried();
afterAll(() => renderer.close());

const PROFILE: ProfileCardModel = {
  kind: 'profile',
  title: 'title_c',
  language: 'en',
  name: 'Nova Łódź Ωμέγα',
  subtitle: 'Title C · Console A · Main: Ana',
  rank: { tier: 'Diamond 1', mark: 'D1', fill: '#6aa8ff', edge: '#2a55b8', rating: '11,902', peak: 'Peak 12,400' },
  form: ['win', 'loss', 'loss', 'win', 'win', 'other', 'win', 'loss', 'win', 'win'],
  trend: { label: 'Rating', values: [11_640, 11_702, 11_655, 11_780, 11_850, 11_810, 11_902], from: '11,640', to: '11,902', rise: 1 },
  lead: [
    { label: 'K/D', value: '1.50', percentile: 67.5 },
    { label: 'Win rate', value: '49.5%', percentile: 55 },
  ],
  // The form and the trend take the figures' room (profileCard gives none then).
  figures: [],
};

const SESSION: SessionCardModel = {
  kind: 'session',
  title: 'title_b',
  language: 'en',
  name: 'Wraithling',
  subtitle: 'Latest session · 7 matches · 2h 42m',
  active: false,
  results: ['win', 'win', 'loss', 'win', 'other', 'loss', 'win'],
  kills: [2, 3, 3, 3, 2, 4, 2],
  damage: [610, 820, 700, 760, 640, 976, 590],
  versus: [
    { label: 'K/D', session: '6.33', career: '4.48', better: true },
    { label: 'Win rate', session: '57.1%', career: '60.0%', better: false },
    { label: 'Kills/match', session: '2.71', career: null, better: null },
  ],
  ratingChange: '+23',
};

const COMPARE: CompareCardModel = {
  kind: 'compare',
  title: 'title_b',
  language: 'en',
  name: 'Wraithling',
  other: 'Ωμέγα Łódź',
  subtitle: 'Title B · PC Store B vs Console A',
  rows: [
    { label: 'K/D', left: '4.48', right: '1.02', better: 'left' },
    { label: 'Win rate', left: '60.0%', right: '60.0%', better: 'even' },
    { label: 'Kills/match', left: '–', right: '2.71', better: null },
    { label: 'Rating', left: '1,204', right: '3,310', better: 'right' },
    { label: 'Matches', left: '1,250', right: '37', better: null },
  ],
  ahead: { left: 1, right: 1 },
};

const decode = (png: Buffer) => PNG.sync.read(png);

/** Share of pixels that differ from `b` by more than `threshold` in some channel. */
function differing(a: PNG, b: PNG, threshold = 48): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if ([0, 1, 2].some((c) => Math.abs(a.data[i + c]! - b.data[i + c]!) > threshold)) n++;
  }
  return n / (a.width * a.height);
}

function expectLikeGolden(png: Buffer, name: string) {
  const path = new URL(`./golden/${name}.png`, import.meta.url);
  // UPDATE_GOLDEN=1 writes the golden image anew (look at it before committing it).
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, png);
  const golden = decode(readFileSync(path));
  const image = decode(png);
  expect([image.width, image.height]).toEqual([golden.width, golden.height]);
  // Anti-aliasing may shift between builds; a layout or font change moves far more than 1%.
  expect(differing(image, golden)).toBeLessThan(0.01);
}

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { logger, lines };
}

describe('card models', () => {
  it('leads a profile with K/D and win rate, chosen by meaning, then up to three figures with percentiles', () => {
    const profile = StatsProfileSchema.parse(fullTitleDProfile());
    const model = profileCard(profile, 'title_d')!;
    expect(model.lead.map((f) => f.label)).toEqual(['K/D', 'Win rate']);
    expect(model.figures.length).toBeGreaterThanOrEqual(1);
    expect(model.figures.length).toBeLessThanOrEqual(3);
    expect(model.subtitle).toMatch(/^Title D · PC Store A/);
  });

  it('shows the rating tier when the answer names one', () => {
    const model = profileCard(StatsProfileSchema.parse(fullTitleBProfile()), 'title_b')!;
    expect(model.rank).toMatchObject({ tier: 'Diamond 1', mark: 'D1', rating: '8,421' });
    expect(model.subtitle).toContain('Legend: Wraith');
  });

  it('leaves off the card what the fonts cannot draw (CJK, emoji, zero-width), keeping Latin, Cyrillic and Greek', () => {
    expect(drawable('Nova 漢字 😀 Привет Ωμέγα Łódź')).toBe('Nova Привет Ωμέγα Łódź');
    expect(drawable('\u200bab\u202ecd')).toBe('abcd');
    expect(drawable('漢字😀')).toBe('');
  });

  it('draws what the fonts declare but lack as the form they have, and composes marks instead of leaving gaps', () => {
    // U+2010 and U+203C are in the Latin file's declared range, with no glyph in it.
    expect(isDrawable(0x2010)).toBe(false);
    expect(isDrawable(0x2013)).toBe(true);
    expect(drawable('Jean\u2010Luc \u203c Soldier\u201176')).toBe('Jean-Luc !! Soldier-76');
    expect(drawable('\uff2e\uff4f\uff56\uff41')).toBe('Nova');
    expect(drawable('Ro\u030ashan')).toBe('Roshan');
    expect(drawable('Re\u0301mi')).toBe('R\u00e9mi');
    expect(drawable('x\u203fx')).toBe('x x');
  });

  it('writes figures for the reader, and draws a figure the answer gives only as text as that text', () => {
    const profile = StatsProfileSchema.parse(fullTitleDProfile());
    const en = profileCard(profile, 'title_d')!;
    const de = profileCard(profile, 'title_d', 'de')!;
    expect(en.figures.map((f) => f.value)).toEqual(['48.1%', '17.6%', '20.71']);
    expect(de.figures.map((f) => f.value)).toEqual(['48,1\u00a0%', '17,6\u00a0%', '20,71']);
    const rating = (locale?: string) => profileCard(StatsProfileSchema.parse(fullTitleBProfile()), 'title_b', locale)!.rank?.rating;
    expect([rating(), rating('de')]).toEqual(['8,421', '8.421']);
    const overview = profile.segments.find((s) => s.type === 'overview')!;
    const kd = Object.entries(overview.stats).find(([k]) => /kd/i.test(k))![0];
    const textOnly = {
      ...profile,
      segments: [{ ...overview, stats: { ...overview.stats, [kd]: { ...overview.stats[kd]!, value: null, displayValue: '1.25', percentile: 80 } } }],
    };
    const lead = profileCard(textOnly, 'title_d')!.lead.find((f) => f.label === 'K/D');
    expect(lead).toEqual({ label: 'K/D', value: '1.25', percentile: null });
  });

  it('sizes a long headline down to fit its column: a win rate of 100.0% is drawn whole', () => {
    const node = JSON.stringify(
      cardLayout({
        ...PROFILE,
        // Without a rank the headline leads in its own column, at its largest.
        rank: null,
        lead: [
          { label: 'Win rate', value: '100.0%', percentile: null },
          { label: 'K/D', value: '1.48', percentile: null },
        ],
      }).node,
    );
    const sizeOf = (value: string) =>
      (
        JSON.parse(node.slice(node.lastIndexOf('{', node.indexOf(`"text":"${value}"`)), node.indexOf('}}', node.indexOf(`"text":"${value}"`)) + 2)) as {
          style: { fontSize: number };
        }
      ).style.fontSize;
    expect(sizeOf('1.48')).toBe(64);
    expect(sizeOf('100.0%')).toBeLessThan(64);
  });

  it('draws undated session matches oldest first, the answer listing them newest first', () => {
    const base = { result: { value: 'win', displayValue: 'Win' } };
    const match = (n: number, result: string) => ({
      attributes: {},
      metadata: { ...base, result: { value: result, displayValue: result } },
      stats: {},
      id: `m${n}`,
    });
    const session = { metadata: {}, stats: {}, matches: [match(3, 'loss'), match(2, 'loss'), match(1, 'win')] } as unknown as Parameters<
      typeof sessionCard
    >[0][number];
    expect(sessionCard([session], 'title_b', 'pc_store_b', 'Rift')!.results).toEqual(['win', 'loss', 'loss']);
  });

  it('draws the latest session in time order with its results, against the career', async () => {
    const service = await startService(smallLines());
    try {
      const sessions = SessionListSchema.parse(
        ((await service.request('/v2/title_b/standard/profile/pc_store_b/Rift/sessions')).body as { data: unknown }).data,
      );
      const career = StatsProfileSchema.parse(((await service.request('/v2/title_b/standard/profile/pc_store_b/Rift')).body as { data: unknown }).data);
      // Rift's newest session is the single match b-3 (a win, 5 kills, 1,400 damage).
      const model = sessionCard(sessions.items, 'title_b', 'pc_store_b', 'Rift', career)!;
      expect(model.results).toEqual(['win']);
      expect(model.kills).toEqual([5]);
      expect(model.damage).toEqual([1400]);
      expect(model.versus.find((v) => v.label === 'K/D')?.career).not.toBeNull();
      // The older session has two matches, oldest first.
      expect(sessionCard(sessions.items.slice(1), 'title_b', 'pc_store_b', 'Rift')!.results).toEqual(['win', 'loss']);
    } finally {
      await service.close();
    }
  });
});

describe('the compare card', () => {
  it('sets the figures of the reply side by side, the better of each pair marked, the counts not', async () => {
    const service = await startService(smallLines());
    try {
      const profile = async (path: string) => StatsProfileSchema.parse(((await service.request(path)).body as { data: unknown }).data);
      // Ash (vanity ashplays): 3 matches, K/D 2.50; Ashen Knight: another title_a player of the small dataset.
      const a = await profile('/v2/title_a/standard/profile/pc_store_a/ashplays');
      const b = await profile('/v2/title_a/standard/profile/console_a/Ashen%20Knight');
      const model = compareCard('title_a', a, b)!;
      expect([model.name, model.other]).toEqual(['Ash', 'Ashen Knight']);
      expect(model.subtitle).toBe('Title A · PC Store A vs Console A');
      const kd = model.rows.find((r) => r.label === 'K/D')!;
      expect(kd.left).toBe('2.50');
      expect(kd.better).toBe(Number(kd.left) > Number(kd.right) ? 'left' : Number(kd.left) < Number(kd.right) ? 'right' : 'even');
      expect(model.rows.find((r) => r.label === 'Matches')?.better).toBeNull();
      expect(model.ahead.left + model.ahead.right).toBe(model.rows.filter((r) => r.better === 'left' || r.better === 'right').length);
    } finally {
      await service.close();
    }
  });

  it('draws two players side by side like the golden image, as tall as its rows', async () => {
    const png = await renderer.render(COMPARE);
    expect([decode(png).width, decode(png).height]).toEqual([CARD_WIDTH, compareHeight(COMPARE.rows.length)]);
    expectLikeGolden(png, 'compare');
  });

  it('marks the better figure: a different winner draws a different card', async () => {
    const flipped = decode(await renderer.render({ ...COMPARE, rows: COMPARE.rows.map((r) => (r.label === 'K/D' ? { ...r, better: 'right' as const } : r)) }));
    expect(differing(flipped, decode(readFileSync(new URL('./golden/compare.png', import.meta.url))))).toBeGreaterThan(0.002);
  });
});

describe('the card renderer', () => {
  it('draws a profile card: a PNG of the card size, not blank, like the golden image', async () => {
    const png = await renderer.render(PROFILE);
    const image = decode(png);
    expect([image.width, image.height]).toEqual([CARD_WIDTH, CARD_HEIGHT.profile]);
    const colours = new Set<number>();
    for (let i = 0; i < image.data.length; i += 4 * 97) colours.add(image.data.readUInt32BE(i));
    expect(colours.size).toBeGreaterThan(10);
    expectLikeGolden(png, 'profile');
  });

  it('draws a session card like the golden image', async () => {
    const png = await renderer.render(SESSION);
    expect([decode(png).width, decode(png).height]).toEqual([CARD_WIDTH, CARD_HEIGHT.session]);
    expectLikeGolden(png, 'session');
  });

  it('a card differs from the golden image when what it shows differs (the comparison can fail)', async () => {
    const other = decode(await renderer.render({ ...PROFILE, lead: [{ label: 'K/D', value: '0.12', percentile: 3 }] }));
    expect(differing(other, decode(readFileSync(new URL('./golden/profile.png', import.meta.url))))).toBeGreaterThan(0.002);
  });

  it('draws a name of glyphs the fonts lack as no boxes at all: a CJK and emoji name reads as "Player"', async () => {
    const lacking = decode(await renderer.render({ ...PROFILE, name: drawable('漢字😀') }));
    const plain = decode(await renderer.render({ ...PROFILE, name: 'Player' }));
    expect(differing(lacking, plain, 0)).toBe(0);
    const mixed = decode(await renderer.render({ ...PROFILE, name: drawable('Nova 漢字') }));
    expect(differing(mixed, decode(await renderer.render({ ...PROFILE, name: 'Nova' })), 0)).toBe(0);
  });

  it('keeps cards by content: the same model is drawn once', async () => {
    const model = { ...SESSION, name: 'Cached' };
    const before = renderer.stats();
    const [a, b] = await Promise.all([renderer.render(model), renderer.render(model)]);
    const c = await renderer.render({ ...model });
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(renderer.stats().rendered - before.rendered).toBe(1);
  });

  it('bounds its cache by entries', async () => {
    const small = unhurried({ cacheEntries: 2 });
    try {
      for (const name of ['a', 'b', 'c']) await small.render({ ...PROFILE, name });
      expect(small.stats().cached).toBe(2);
    } finally {
      await small.close();
    }
  });
});

describe('falling back to the text reply', () => {
  const reply = embedReply({ title: 'Nova', description: 'Console A' });

  it('attaches the card as the embed image through attachment://', async () => {
    const { logger } = capture();
    const out = await withCard(reply, () => PROFILE, { cards: renderer, logger });
    expect(out.embeds[0]?.image).toEqual({ url: `attachment://${CARD_FILE}` });
    expect(out.embeds[0]?.title).toBe('Nova');
    expect(out.files?.[0]?.name).toBe(CARD_FILE);
    expect(decode(out.files![0]!.data).width).toBe(CARD_WIDTH);
  });

  it('sends text only when asked to, or when cards are off', async () => {
    const { logger } = capture();
    expect(await withCard(reply, () => PROFILE, { cards: renderer, logger }, true)).toBe(reply);
    expect(await withCard(reply, () => PROFILE, { logger })).toBe(reply);
  });

  it('gives a card up at its deadline and logs it', async () => {
    const hanging = createCardRenderer({ deadlineMs: 300, workerUrl: new URL('./hanging-worker.mjs', import.meta.url) });
    const { logger, lines } = capture();
    try {
      const started = Date.now();
      const out = await withCard(reply, () => PROFILE, { cards: hanging, logger });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(out).toBe(reply);
      expect(lines).toEqual([expect.objectContaining({ msg: 'card not drawn; sending the text reply', reason: 'timeout', card: 'profile' })]);
      expect(hanging.stats().failures.timeout).toBe(1);
    } finally {
      await hanging.close();
    }
  });

  it('waits for a card only as long as its answer can: the rest of the budget, not the renderer deadline', async () => {
    const hanging = createCardRenderer({ deadlineMs: 20_000, workerUrl: new URL('./hanging-worker.mjs', import.meta.url) });
    const { logger, lines } = capture();
    try {
      const started = Date.now();
      const out = await withCard(reply, () => PROFILE, { cards: hanging, logger, cardWaitMs: () => 150 });
      expect(out).toBe(reply);
      // Far below the renderer's 20 s: the answer's 150 ms decided (generous bound for a busy machine).
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(lines).toEqual([expect.objectContaining({ reason: 'timeout', err: expect.stringContaining('150 ms') as unknown })]);
      // Giving up on the wait does not stop the worker: only a card stuck past the deadline does.
      expect(hanging.stats()).toMatchObject({ restarted: 0, failures: expect.objectContaining({ timeout: 1 }) as unknown });
    } finally {
      await hanging.close();
    }
  });

  it('draws no card at all for an answer already past its budget (late), and sends the text', async () => {
    const fresh = unhurried();
    const { logger, lines } = capture();
    try {
      const out = await withCard(reply, () => ({ ...PROFILE, name: 'Late' }), { cards: fresh, logger, cardWaitMs: () => -5 });
      expect(out).toBe(reply);
      expect(lines).toEqual([expect.objectContaining({ reason: 'late' })]);
      expect(fresh.stats()).toMatchObject({ rendered: 0, queued: 0, failures: expect.objectContaining({ late: 1 }) as unknown });
    } finally {
      await fresh.close();
    }
  });

  it('takes a queued card out of the queue when nobody waits for it any more', async () => {
    const hanging = createCardRenderer({ deadlineMs: 20_000, workerUrl: new URL('./hanging-worker.mjs', import.meta.url) });
    try {
      const first = hanging.render({ ...PROFILE, name: 'drawing' }, { waitMs: 100 });
      const second = hanging.render({ ...PROFILE, name: 'queued' }, { waitMs: 100 });
      expect(hanging.stats().queued).toBe(1);
      const [a, b] = await Promise.allSettled([first, second]);
      expect([a, b]).toEqual([
        expect.objectContaining({ status: 'rejected', reason: expect.objectContaining({ reason: 'timeout' }) as unknown }),
        expect.objectContaining({ status: 'rejected', reason: expect.objectContaining({ reason: 'timeout' }) as unknown }),
      ]);
      expect(hanging.stats()).toMatchObject({ queued: 0, dropped: 1, restarted: 0 });
    } finally {
      await hanging.close();
    }
  });

  it('refuses at once when the queue is full (busy), rather than making the reply wait', async () => {
    const hanging = createCardRenderer({ deadlineMs: 1000, queue: 1, workerUrl: new URL('./hanging-worker.mjs', import.meta.url) });
    try {
      const first = hanging.render({ ...PROFILE, name: '1' });
      const second = hanging.render({ ...PROFILE, name: '2' });
      await expect(hanging.render({ ...PROFILE, name: '3' })).rejects.toMatchObject({ reason: 'busy' });
      await expect(first).rejects.toMatchObject({ reason: 'timeout' });
      await expect(second).rejects.toMatchObject({ reason: 'timeout' });
    } finally {
      await hanging.close();
    }
  });

  it('refuses at once a card that would come after its answer stopped waiting (busy), and queues one that would not', async () => {
    const hanging = createCardRenderer({ deadlineMs: 1000, workerUrl: new URL('./hanging-worker.mjs', import.meta.url) });
    try {
      const drawing = hanging.render({ ...PROFILE, name: '1' }, { waitMs: 200 });
      const queued = hanging.render({ ...PROFILE, name: '2' }, { waitMs: 200 });
      // Two ahead of it at about 10 ms each (no card measured yet): 30 ms it cannot spare.
      await expect(hanging.render({ ...PROFILE, name: '3' }, { waitMs: 15 })).rejects.toMatchObject({ reason: 'busy' });
      expect(hanging.stats().queued).toBe(1);
      await expect(drawing).rejects.toMatchObject({ reason: 'timeout' });
      await expect(queued).rejects.toMatchObject({ reason: 'timeout' });
    } finally {
      await hanging.close();
    }
  });

  it('warms up before the first answer: its workers started and one card drawn', async () => {
    const fresh = unhurried();
    try {
      await fresh.warm();
      expect(fresh.stats()).toMatchObject({ rendered: 1, cached: 1 });
      expect(decode(await fresh.render(PROFILE)).width).toBe(CARD_WIDTH);
    } finally {
      await fresh.close();
    }
  });

  it('lays cards out in the worker without loading discord.js (in its import graph it cost the worker about 30 MB resident and 0.2 s of its start)', () => {
    // What the worker imports besides takumi: the layout module (render-worker.mjs, importBeside).
    // discord.js is CommonJS, so its modules show in the require cache once anything imports it.
    const script = `import { createRequire } from 'node:module';
      await import('./src/cards/layout.ts');
      const loaded = Object.keys(createRequire(process.cwd() + '/').cache);
      process.stdout.write(JSON.stringify(loaded.filter((path) => /[\\\\/]node_modules[\\\\/](discord\\.js|@discordjs)[\\\\/]/.test(path))));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([]);
  });

  it("reads V8's pool size from the command line it is given (the main thread's: a card worker's own is empty)", () => {
    expect([v8PoolSize([]), v8PoolSize(['--v8-pool-size=2']), v8PoolSize(['--max-old-space-size=160', '--v8-pool-size', '3'])]).toEqual([4, 2, 3]);
    expect(nodeOwnThreads([7, 3, 12, 10, 11, 9, 8, 20, 21], 7, 2)).toEqual(new Set([8, 9, 10, 11]));
  });

  it.runIf(process.platform === 'linux')(
    "draws at a lower priority than the thread asking for cards: the drawing threads are found and lowered; the caller and Node's own threads are not",
    async () => {
      const tasks = `/proc/${process.pid}/task`;
      const nice = (tid: string) => {
        const stat = readFileSync(`${tasks}/${tid}/stat`, 'utf8');
        // Field 19 (nice), the 17th after the parenthesised command name.
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      const cpu = () => new Map(readdirSync(tasks).map((tid) => [tid, Number(readFileSync(`${tasks}/${tid}/schedstat`, 'utf8').split(' ')[0])]));
      // Node's own threads (V8's pool and two more) are the first a process starts: as many as a
      // fresh Node process, started the same way, has besides its main thread. V8's pool collects the
      // worker's garbage too, at their normal priority: their time is not the drawing's.
      const startup =
        Number(
          execFileSync(process.execPath, [...process.execArgv, '-e', "process.stdout.write(String(require('fs').readdirSync('/proc/self/task').length))"], {
            encoding: 'utf8',
          }),
        ) - 1;
      const fresh = unhurried();
      try {
        await fresh.warm();
        const own = [...cpu().keys()]
          .map(Number)
          .filter((tid) => tid > process.pid)
          .sort((a, b) => a - b)
          .slice(0, startup)
          .map(String);
        expect(own).toHaveLength(startup);
        expect([...nodeOwnThreads([...cpu().keys()].map(Number), process.pid, v8PoolSize(process.execArgv))].map(String)).toEqual(own);
        const before = cpu();
        for (let i = 0; i < 20; i++) await fresh.render({ ...PROFILE, name: `Lowered ${i}` });
        // The CPU time the cards took, by the priority of the threads that spent it (this one and Node's own aside).
        let lowered = 0;
        let normal = 0;
        for (const [tid, ns] of cpu()) {
          if (tid === String(process.pid) || own.includes(tid)) continue;
          const spent = ns - (before.get(tid) ?? ns);
          if (nice(tid) === 10) lowered += spent;
          else normal += spent;
        }
        expect(lowered).toBeGreaterThan(4 * normal);
        expect(nice(String(process.pid))).toBe(0);
        expect(own.map(nice)).toEqual(own.map(() => 0));
      } finally {
        await fresh.close();
      }
    },
  );

  it('waits for a worker slow to start instead of stopping it as stuck, at a start and for its first card', async () => {
    // A stuck-guard of 300 ms against a worker that takes 1 s to start: the guard starts once it is ready.
    const slow = createCardRenderer({ deadlineMs: 300, workerUrl: new URL('./slow-start-worker.mjs', import.meta.url) });
    try {
      await slow.warm();
      expect(slow.stats().restarted).toBe(0);
      expect(decode(await slow.render({ ...PROFILE, name: 'After a slow start' })).width).toBe(CARD_WIDTH);
    } finally {
      await slow.close();
    }
  });

  it('keeps a process with nothing else to do alive while its workers start', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./warm-alone.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, out }).toEqual({ code: 0, out: '{"rendered":1}' });
  });

  it('falls back when the worker cannot start, and says why', async () => {
    const broken = createCardRenderer({ deadlineMs: 2000, workerUrl: new URL('./broken-worker.mjs', import.meta.url) });
    const { logger, lines } = capture();
    try {
      const out = await withCard(reply, () => SESSION, { cards: broken, logger });
      expect(out).toBe(reply);
      expect(lines[0]).toMatchObject({ reason: 'failed', err: expect.stringContaining('fonts missing') as unknown });
    } finally {
      await broken.close();
    }
  });

  it('after close, cards are refused (closed) and the reply is text', async () => {
    const closing = unhurried();
    await closing.close();
    await expect(closing.render(PROFILE)).rejects.toMatchObject({ reason: 'closed' });
  });
});
