// The feed's poller with one player it cannot look at (a state row that no longer reads): the
// others due after that player are still looked at, and the operator hears which one failed.
import { setTimeout as sleep } from 'node:timers/promises';

import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

import type { Deps, LinkedAccount } from '../../commands/index.js';
import { FeedPoller } from '../../src/bot/feed.js';
import { sqliteFeedStore } from '../../src/bot/feed-store.js';
import { lookupError } from '../../src/lookup/errors.js';

const GUILD = '1180000000000000100';
const BAD = '1180000000000000401';
const GOOD = '1180000000000000402';

describe('the session feed’s poller', () => {
  it('goes on to the players after one whose look fails, and says which one failed', async () => {
    const store = sqliteFeedStore(':memory:', 1_000);
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const looked: string[] = [];
    const account = (userId: string): LinkedAccount => ({ platform: 'pc_store_b', identifier: userId === BAD ? 'Bad' : 'Good', handle: 'x' });
    const lookup = {
      sessions: (_title: string, _platform: string, identifier: string) => {
        looked.push(identifier);
        return Promise.resolve({ errors: [lookupError('not_found', 'No such player.')], meta: { source: 'network', fetchedAt: Date.now(), ageMs: 0 } });
      },
    };
    await store.join({ guildId: GUILD, userId: BAD, title: 'title_b' });
    await store.join({ guildId: GUILD, userId: GOOD, title: 'title_b' });
    // The first player due has a state that does not read any more.
    store.db.prepare('INSERT INTO feed_players (key, value, until) VALUES (?, ?, ?)').run(`${BAD}|title_b`, '{not json', Date.now() + 60_000);
    const poller = new FeedPoller({
      store,
      links: { get: (userId: string) => Promise.resolve(account(userId)) } as unknown as Deps['links'],
      lookup: lookup as unknown as Deps['lookup'],
      poster: {} as Deps['poster'] & object,
      logger,
      requestsPerMinute: 120,
      now: () => Date.now(),
      tickMs: 20,
    });
    try {
      poller.start();
      for (let i = 0; i < 100 && looked.length === 0; i++) await sleep(20);
      expect(looked).toEqual(['Good']);
      expect(lines.find((l) => l.msg === 'session feed: looking at a player failed; they wait 5 minutes')).toMatchObject({ user: BAD, title: 'title_b' });
    } finally {
      await poller.stop();
      store.close();
    }
  });
});
