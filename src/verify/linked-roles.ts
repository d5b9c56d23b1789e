// Linked Roles: the metadata a server owner can make a role require (registered by
// `npm run deploy-commands`), and each verified member's values of it for the title the operator
// names (LINKED_ROLES_TITLE). At most five records, Discord's limit.
import { LADDERS, PLATFORMS, TITLES, type PlatformSlug, type TitleSlug } from '../catalog/index.js';
import { figure, ratingTier } from '../embeds/index.js';
import type { Stats } from '../lookup/schemas.js';
import type { RoleConnection } from './discord-oauth.js';

/** Discord's metadata types used here. */
const INTEGER_AT_LEAST = 2;
const BOOLEAN_EQUAL = 7;

export interface RoleConnectionRecord {
  type: number;
  key: string;
  name: string;
  description: string;
}

/** The records for a title: tier (its place on the ladder, 1 the lowest), rating, K/D × 100, wins, verified. */
export function roleConnectionRecords(title: TitleSlug): RoleConnectionRecord[] {
  const ladder = LADDERS[title].tiers;
  const places = ladder.map((t, i) => `${i + 1} ${t.name}`).join(', ');
  return [
    { type: INTEGER_AT_LEAST, key: 'tier', name: 'Tier', description: `${TITLES[title].name} tier at least: ${places}`.slice(0, 200) },
    { type: INTEGER_AT_LEAST, key: 'rating', name: 'Rating', description: `${TITLES[title].name} ranked rating at least` },
    { type: INTEGER_AT_LEAST, key: 'kd_x100', name: 'K/D × 100', description: 'Career K/D times 100 at least (200 for a K/D of 2.00)' },
    { type: INTEGER_AT_LEAST, key: 'wins', name: 'Wins', description: 'Career wins at least' },
    { type: BOOLEAN_EQUAL, key: 'verified', name: 'Verified account', description: 'Game account verified through a Discord connection' },
  ];
}

/** The tier's place on the title's ladder (1 the lowest), read from the tier's first word as any answer names it (`Diamond 1`). */
export function tierPlace(title: TitleSlug, tierName: string): number | undefined {
  const word = tierName.trim().split(/\s+/)[0]?.toLowerCase();
  const i = LADDERS[title].tiers.findIndex((t) => t.name.toLowerCase() === word);
  return i < 0 ? undefined : i + 1;
}

/** A verified member's role connection: what the career shows, each value left out when the answer has none. */
export function roleConnectionOf(title: TitleSlug, stats: Stats, account: { platform: PlatformSlug; handle: string }): RoleConnection {
  const metadata: Record<string, string> = { verified: '1' };
  const rating = figure(stats, title, 'rating');
  const tier = ratingTier(rating);
  const place = tier ? tierPlace(title, tier.name) : undefined;
  if (place !== undefined) metadata.tier = String(place);
  if (typeof rating?.value === 'number') metadata.rating = String(Math.round(rating.value));
  const kd = figure(stats, title, 'kd')?.value;
  if (typeof kd === 'number' && Number.isFinite(kd)) metadata.kd_x100 = String(Math.round(kd * 100));
  const wins = figure(stats, title, 'wins')?.value;
  if (typeof wins === 'number') metadata.wins = String(Math.round(wins));
  return {
    platform_name: `${TITLES[title].name} · ${PLATFORMS[account.platform].name}`.slice(0, 50),
    platform_username: account.handle.slice(0, 100),
    metadata,
  };
}

/** A member no longer verified: the role connection carries nothing, so every role that asked for it goes. */
export const EMPTY_ROLE_CONNECTION: RoleConnection = { platform_name: null, platform_username: null, metadata: {} };
