// Play sessions: a player's matches in time order, cut where 45 minutes or more lie between the end
// of the matches so far (start + duration) and the start of the next.

export const SESSION_GAP_MS = 45 * 60 * 1000;

export interface TimedMatch {
  match_id: string;
  started_at: number;
  duration_s: number;
}

export interface SessionSpan<T extends TimedMatch> {
  matches: T[];
  start: number;
  /** The latest end among the session's matches (they may overlap). */
  end: number;
}

/** Cuts matches (sorted by start, oldest first) into sessions, oldest first. */
export function cutSessions<T extends TimedMatch>(matches: readonly T[], gapMs = SESSION_GAP_MS): SessionSpan<T>[] {
  const sessions: SessionSpan<T>[] = [];
  let current: SessionSpan<T> | undefined;
  for (const m of matches) {
    const end = m.started_at + m.duration_s * 1000;
    if (!current || m.started_at - current.end >= gapMs) {
      current = { matches: [], start: m.started_at, end };
      sessions.push(current);
    }
    current.matches.push(m);
    current.end = Math.max(current.end, end);
  }
  return sessions;
}

/** Whether a session whose last match ended at `end` is still going at `now`. */
export function isActiveSession(end: number, now: number, gapMs = SESSION_GAP_MS): boolean {
  return now - end < gapMs;
}
