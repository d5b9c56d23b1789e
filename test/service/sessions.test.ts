import { describe, expect, it } from 'vitest';

import { cutSessions, isActiveSession, SESSION_GAP_MS } from '../../src/service/sessions.js';

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
