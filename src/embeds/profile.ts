import type { TitleSlug } from '../catalog/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { StatsProfile } from '../lookup/schemas.js';
import { TITLE_COLORS, freshness, pickStats, platformName, relativeTime, statLine, titleName } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';

const METADATA_LINES: [key: string, label: string][] = [
  ['currentSeason', 'Season'],
  ['activeLegendName', 'Legend'],
  ['mainHero', 'Main hero'],
  ['favoriteMap', 'Favourite map'],
];

/** A player's career: the headline stats with rank and percentile. */
export function profileReply(profile: StatsProfile, title: TitleSlug, meta: LookupMeta): Reply {
  const handle = safeText(profile.platformInfo.platformUserHandle);
  const overview = profile.segments.find((s) => s.type === 'overview') ?? profile.segments[0];
  const lines = [`${platformName(profile.platformInfo.platformSlug)}`];
  const lastPlayed = profile.metadata.lastPlayed;
  if (typeof lastPlayed === 'string') lines.push(`Last played ${relativeTime(lastPlayed)}`);
  for (const [key, label] of METADATA_LINES) {
    const value = profile.metadata[key];
    if (typeof value === 'string' || typeof value === 'number') lines.push(`${label}: **${safeText(String(value))}**`);
  }
  const available = profile.availableSegments.filter((s) => s.type !== 'overview').map((s) => s.type);
  const avatar = profile.platformInfo.avatarUrl;
  return embedReply(
    {
      color: TITLE_COLORS[title],
      author: { name: `${titleName(title)} · Career`, ...(avatar ? { icon_url: avatar } : {}) },
      title: handle,
      description: lines.join('\n'),
      ...(avatar ? { thumbnail: { url: avatar } } : {}),
      fields: overview
        ? pickStats(overview.stats, 12).map(([, stat]) => ({ name: stat.displayName, value: statLine(stat), inline: true }))
        : [{ name: 'No stats yet', value: 'This player has no matches on record.' }],
      footer: { text: [freshness(meta), available.length > 0 ? `Segments: ${available.join(', ')}` : null].filter(Boolean).join(' · ') },
    },
    [],
    false,
    meta.source,
  );
}
