// A stat under the answer's own name, for the replies (not the cards: format.ts stays free of
// reply.ts, whose markdown escaping loads discord.js, which the card worker must not).
import type { Stat } from '../lookup/schemas.js';
import { statValue } from './format.js';
import { safeText } from './reply.js';

/** A stat under the answer's own name ("Deaths 3"), its value in bold where it stands out ("Level **87**"). */
export function namedStat(stat: Stat, locale: string | undefined, bold = false, compact = true): string {
  const value = safeText(statValue(stat, locale, undefined, compact));
  return `${safeText(stat.displayName)} ${bold ? `**${value}**` : value}`;
}
