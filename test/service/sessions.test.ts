import { describe, expect, it } from 'vitest';

import { importLines } from '../../src/service/import.js';
import { Memo, SESSION_MATCHES_LIMIT, sessions } from '../../src/service/lookups.js';
import { cutSessions, isActiveSession, SESSION_GAP_MS } from '../../src/service/sessions.js';
import { StatsStore } from '../../src/service/store.js';

const m = (id: string, startSeconds: number, durationSeconds: number) => ({ match_id: id, started_at: startSeconds * 1000, duration_s: durationSeconds });

describe('cutSessions', () => {
  it('keeps a match that starts 44:59 after the previous one ended in the same session', () => {
    const sessions = cutSessions([m('a', 0, 600), m('b', 600 + 44 * 60 + 59, 60)]);
    expect(sessions.map((s) => s.matches.map((x) => x.match_id))).toEqual([['a', 'b']]);
  });

  it('starts a new session when exactly 45:00 lie between the end of one match and the start of the next', () => {
    const sessions = cutSessions([m('a', 0, 600), m('b', 600 + 45 * 60, 60)]);
    expect(sessions.map((s) => s.matches.map((x) => x.match_id))).toEqual([['a'], ['b']]);
    expect(sessions[1]?.start).toBe((600 + 45 * 60) * 1000);
  });

  it('measures the gap from the end of a match, not its start', () => {
    // Starts 50 minutes apart, but the first match lasted 10 minutes: the gap is 40 minutes.
    expect(cutSessions([m('a', 0, 600), m('b', 3000, 60)])).toHaveLength(1);
  });

  it('measures from the latest end when matches overlap', () => {
    // b ends at 7200 s, later than c; d starts 44 minutes after b ended.
    const sessions = cutSessions([m('a', 0, 60), m('b', 100, 7100), m('c', 200, 60), m('d', 7200 + 44 * 60, 60)]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.end).toBe((7200 + 44 * 60 + 60) * 1000);
  });

  it('answers no sessions for no matches', () => {
    expect(cutSessions([])).toEqual([]);
  });

  it('calls a session active until 45 minutes after its last match ended', () => {
    expect(isActiveSession(0, SESSION_GAP_MS - 1000)).toBe(true);
    expect(isActiveSession(0, SESSION_GAP_MS)).toBe(false);
  });
});

describe('the sessions of a player who never stops', () => {
  it('lists the newest matches of a session of thousands, its stats and count covering every one', async () => {
    const store = new StatsStore();
    const t0 = Date.parse('2026-06-01T00:00:00Z');
    const n = 3_000;
    // One match every 10 minutes for three weeks: never 45 minutes apart, so one session.
    await importLines(
      store,
      Array.from({ length: n }, (_, i) =>
        JSON.stringify({
          type: 'match',
          title: 'title_b',
          platform: 'pc_store_b',
          id: `s-${i}`,
          startedAt: new Date(t0 + i * 600_000).toISOString(),
          durationSeconds: 500,
          players: [{ id: 'Nonstop', platform: 'pc_store_b', result: i % 3 === 0 ? 'win' : 'loss', stats: { kills: 2 } }],
        }),
      ),
    );
    const list = await sessions({ store, now: () => t0 + 365 * 86_400_000 }, new Memo(), 'title_b', 'pc_store_b', 'nonstop');
    await store.close();
    expect(list.items).toHaveLength(1);
    const [session] = list.items;
    expect(session?.matches).toHaveLength(SESSION_MATCHES_LIMIT);
    expect(session?.matches[0]?.id).toBe(`s-${n - 1}`);
    expect(session?.metadata.matchCount).toBe(n);
    expect(session?.stats.kills?.value).toBe(2 * n);
    expect(session?.stats.wins?.value).toBe(n / 3);
  });
});
