// How numbers, places and times read in a reply.
import { PLATFORMS, TITLES, type PlatformSlug, type TitleSlug } from '../catalog/index.js';
import type { Stat } from '../lookup/schemas.js';
import type { LookupMeta } from '../lookup/client.js';

/** One colour per title, so that a glance tells which game a reply is about. */
export const TITLE_COLORS: Record<TitleSlug, number> = {
  title_a: 0xe67e22,
  title_b: 0xc0392b,
  title_c: 0xf1c40f,
  title_d: 0x2980b9,
};

export const titleName = (title: TitleSlug): string => TITLES[title].name;
/** A platform's name for a slug; an answer without a slug gives an empty name. */
export const platformName = (platform: string | null): string => (platform === null ? '' : (PLATFORMS[platform as PlatformSlug]?.name ?? platform));

/** "`pc_store_c` (PC Store C), `console_a` (Console A)": what to type, and what it is. */
export const platformList = (platforms: readonly PlatformSlug[]): string => platforms.map((p) => `\`${p}\` (${PLATFORMS[p].name})`).join(', ');

/** "top 3%" from a percentile of 97; "top 0.9%" from 99.1; nothing when unknown. */
export function topShare(percentile: number | null): string | null {
  if (percentile === null) return null;
  const share = Math.max(0.1, Math.round((100 - percentile) * 10) / 10);
  return `top ${share}%`;
}

/** A stat as a field value: the value, then its place when there is one. */
export function statLine(stat: Stat): string {
  const place = [stat.rank !== null ? `#${stat.rank.toLocaleString('en-US')}` : null, topShare(stat.percentile)].filter(Boolean).join(' · ');
  return place ? `**${stat.displayValue}**\n${place}` : `**${stat.displayValue}**`;
}

/** "just now", "3 minutes ago", "2 hours ago", "5 days ago". */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'} ago`;
  if (s < 45) return 'just now';
  if (s < 3_600) return unit(Math.max(1, Math.round(s / 60)), 'minute');
  if (s < 86_400) return unit(Math.round(s / 3_600), 'hour');
  return unit(Math.round(s / 86_400), 'day');
}

/** Discord renders `<t:…:R>` in each reader's own time zone and language ("3 hours ago"). */
export const relativeTime = (iso: string): string => `<t:${Math.floor(Date.parse(iso) / 1000)}:R>`;
export const shortDateTime = (iso: string): string => `<t:${Math.floor(Date.parse(iso) / 1000)}:f>`;

/** What the footer says about where the data came from. */
export function freshness(meta: LookupMeta): string {
  switch (meta.source) {
    case 'stale':
      return `⚠ The stats service is ${meta.staleBecause?.kind === 'rate_limited' ? 'busy' : 'unavailable'}: data from ${ago(meta.ageMs)}`;
    case 'cache':
      return `Updated ${ago(meta.ageMs)}`;
    case 'network':
    case 'local':
      return 'Updated just now';
  }
}

/** The stats to lead with, in order, from those a payload has. */
export const HEADLINE_STATS = [
  'matchesPlayed',
  'wins',
  'winRate',
  'kills',
  'deaths',
  'kd',
  'assists',
  'damage',
  'killsPerMatch',
  'damagePerMatch',
  'headshotRate',
  'accuracy',
  'timePlayed',
] as const;

/** Up to `max` stats: the headline ones first, then the rest in the payload's order. */
export function pickStats(stats: Record<string, Stat>, max: number): [string, Stat][] {
  const keys = [...HEADLINE_STATS.filter((k) => k in stats), ...Object.keys(stats).filter((k) => !(HEADLINE_STATS as readonly string[]).includes(k))];
  return keys.slice(0, max).map((k) => [k, stats[k] as Stat]);
}

/** "Kills 12 · K/D 2.40 · Win % 51.0%": a compact line of a few stats. */
export function compactStats(stats: Record<string, Stat>, keys: readonly string[]): string {
  return keys
    .filter((k) => stats[k])
    .map((k) => `${stats[k]?.displayName ?? k} **${stats[k]?.displayValue ?? '-'}**`)
    .join(' · ');
}
