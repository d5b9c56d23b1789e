import { FIGURE_INFO, LEAD_FIGURES, type TitleSlug } from '../catalog/index.js';
import type { LookupMeta } from '../lookup/client.js';
import { overviewOf, type StatsProfile } from '../lookup/schemas.js';
import { figure, figures, ratingTier } from './figures.js';
import { TITLE_COLORS, freshness, pickStats, platformName, relativeTime, statLine, titleName } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';

const METADATA_LINES: [key: string, label: string][] = [
  ['currentSeason', 'Season'],
  ['activeLegendName', 'Legend'],
  ['mainHero', 'Main hero'],
  ['favoriteMap', 'Favourite map'],
];

const MAX_FIELDS = 12;

/** A player's career: the figures that matter first (chosen by meaning), then the rest, with places. */
export function profileReply(profile: StatsProfile, title: TitleSlug, meta: LookupMeta): Reply {
  const handle = safeText(profile.platformInfo.platformUserHandle);
  const overview = overviewOf(profile.segments);
  const lines = [platformName(profile.platformInfo.platformSlug)].filter(Boolean);
  const tier = overview ? ratingTier(figure(overview.stats, title, 'rating')) : undefined;
  if (tier) lines.push(`Rank: **${safeText(tier.name)}**`);
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
      fields: overview ? profileFields(overview.stats, title) : [{ name: 'No stats yet', value: 'This player has no matches on record.' }],
      footer: { text: [freshness(meta), available.length > 0 ? `Segments: ${available.join(', ')}` : null].filter(Boolean).join(' · ') },
    },
    [],
    false,
    meta.source,
  );
}

function profileFields(stats: StatsProfile['segments'][number]['stats'], title: TitleSlug) {
  const lead = figures(stats, title, LEAD_FIGURES);
  const used = new Set(lead.map((f) => f.key).filter((k): k is string => k !== undefined));
  const rest = pickStats(Object.fromEntries(Object.entries(stats).filter(([key]) => !used.has(key))), MAX_FIELDS - lead.length);
  return [
    ...lead.map(({ figure: f, stat }) => ({ name: FIGURE_INFO[f].label, value: statLine(stat), inline: true })),
    ...rest.map(([, stat]) => ({ name: safeText(stat.displayName), value: statLine(stat), inline: true })),
  ];
}
