// A match's result as answers word it ("win", "Victory", "Won", "Tie" ...), read in one place for
// the text replies and the cards alike.
import type { TextKey } from '../locales/index.js';

export type Outcome = 'win' | 'loss' | 'draw';

const OUTCOMES: ReadonlyMap<string, Outcome> = new Map([
  ['win', 'win'],
  ['won', 'win'],
  ['victory', 'win'],
  ['winner', 'win'],
  ['loss', 'loss'],
  ['lost', 'loss'],
  ['lose', 'loss'],
  ['defeat', 'loss'],
  ['draw', 'draw'],
  ['tie', 'draw'],
  ['tied', 'draw'],
]);

/** Win, loss or draw from a result's word, whatever its case; null for any other word (DNF) or none. */
export const outcomeOf = (result: string | null | undefined): Outcome | null => (result ? (OUTCOMES.get(result.trim().toLowerCase()) ?? null) : null);

/** 🟩 🟥 ⬜, and ⬜ for a result that is none of the three. */
export const outcomeMark = (result: string | null | undefined): string => {
  const o = outcomeOf(result);
  return o === 'win' ? '🟩' : o === 'loss' ? '🟥' : '⬜';
};

export const OUTCOME_WORDS: Readonly<Record<Outcome, TextKey>> = { win: 'result.win', loss: 'result.loss', draw: 'result.draw' };
