// Reading what the user typed into what a lookup needs: the platform (checked against what the
// endpoint allows) and the player (typed, or the linked account). Every refusal is a clear,
// ephemeral reply saying what to type instead.
import {
  PLATFORMS,
  TITLES,
  TITLE_SLUGS,
  findEndpoint,
  isTitle,
  type Endpoint,
  type EndpointKind,
  type PlatformSlug,
  type TitleSlug,
} from '../src/catalog/index.js';
import {
  code,
  notice,
  platformList,
  platformOf,
  rows,
  safeText,
  switchSelect,
  titleList,
  typedPlatform,
  withoutControls,
  type Reply,
} from '../src/embeds/index.js';
import type { CommandInput, Deps, View } from './types.js';
import { commandLine, optionName, say, sayCount } from '../src/locales/index.js';

export interface Target {
  endpoint: Endpoint;
  platform: PlatformSlug;
  player: string;
  /** The linked account's name when the player came from `/link`: replies show it, never the raw id. */
  handle?: string | undefined;
}

export function endpointOf(title: TitleSlug, kind: EndpointKind): Endpoint {
  const endpoint = findEndpoint(title, kind);
  if (!endpoint) throw new Error(`${title} has no ${kind} endpoint`);
  return endpoint;
}

/** Characters that show nothing and that trim() keeps (besides bidi controls): zero-width spaces and joiners, direction marks, the word joiner, the BOM. */
const ZERO_WIDTH = /[\u200b-\u200f\u2060-\u2064\ufeff]/g;

/** A text option as typed, trimmed; none when it shows nothing (blank, or only invisible characters). */
export const stringOption = (input: CommandInput, name: string): string | undefined => {
  const value = input.options[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return withoutControls(trimmed).replace(ZERO_WIDTH, '').trim().length > 0 ? trimmed : undefined;
};

/** The `title` option of the top-level commands (`/link`, `/compare`, ...), as fixed choices. */
export const titleChoices = TITLE_SLUGS.map((t) => ({ name: TITLES[t].name, value: t }));

/** The title typed; a value typed past the choices gets a clear answer. */
export function titleOf(input: CommandInput): TitleSlug | Reply {
  const title = stringOption(input, 'title') ?? '';
  return isTitle(title) ? title : notice(say(input.locale, 'resolve.chooseTitle', { list: titleList() }));
}

export const integerOption = (input: CommandInput, name: string): number | undefined => {
  const value = input.options[name];
  return typeof value === 'number' ? value : undefined;
};

export const booleanOption = (input: CommandInput, name: string): boolean | undefined => {
  const value = input.options[name];
  return typeof value === 'boolean' ? value : undefined;
};

/** The platform option checked against the endpoint: a value typed past autocomplete may be anything. */
export function checkPlatform(endpoint: Endpoint, value: string, locale?: string): PlatformSlug | Reply {
  const known = platformOf(value);
  if (known && endpoint.platforms.includes(known)) return known;
  // A platform the endpoint does not serve is named as players know it; only what is no platform is quoted back.
  // One platform is named as the only one ("only on PC Store A"), not offered as a choice of one.
  return notice(
    sayCount(locale, 'resolve.notOnPlatform', endpoint.platforms.length, {
      title: TITLES[endpoint.title].name,
      kind: say(locale, `kind.${endpoint.kind}`),
      platform: typedPlatform(value),
      list: platformList(endpoint.platforms),
    }),
  );
}

/**
 * The platform of a command that can do without a player (search, match), and the one autocomplete
 * guesses: typed (and allowed), the only one, or the linked account's.
 */
export async function choosePlatform(input: CommandInput, endpoint: Endpoint, deps: Deps): Promise<PlatformSlug | Reply> {
  const typed = stringOption(input, 'platform');
  if (typed) return checkPlatform(endpoint, typed, input.locale);
  if (endpoint.platforms.length === 1) return endpoint.platforms[0] as PlatformSlug;
  const linked = (await deps.links.get(input.userId, endpoint.title))?.platform;
  if (linked && endpoint.platforms.includes(linked)) return linked;
  return notice(say(input.locale, 'resolve.choosePlatform', { list: platformList(endpoint.platforms) }));
}

/**
 * The platform and player of a command: typed, or taken from the user's linked account. With
 * neither, the reply says how to link or what to type.
 */
export async function resolveTarget(input: CommandInput, title: TitleSlug, kind: EndpointKind, deps: Deps): Promise<Target | Reply> {
  const endpoint = endpointOf(title, kind);
  const typedPlatform = stringOption(input, 'platform');
  const typedPlayer = stringOption(input, 'player');
  let platform: PlatformSlug | undefined;
  if (typedPlatform) {
    const checked = checkPlatform(endpoint, typedPlatform, input.locale);
    if (typeof checked !== 'string') {
      // A platform the title has, but not for this view: the player is offered where it is served.
      const player = typedPlayer ?? (await deps.links.get(input.userId, title).catch(() => undefined))?.identifier;
      return platformOf(typedPlatform) && player ? offerPlatforms(checked, input, title, kind, endpoint, player, deps) : checked;
    }
    platform = checked;
  }
  if (typedPlayer) {
    platform ??= endpoint.platforms.length === 1 ? endpoint.platforms[0] : (await deps.links.get(input.userId, title))?.platform;
    if (!platform || !endpoint.platforms.includes(platform))
      return notice(say(input.locale, 'resolve.choosePlatformFor', { player: safeText(typedPlayer), list: platformList(endpoint.platforms) }));
    return { endpoint, platform, player: typedPlayer };
  }
  const linked = await deps.links.get(input.userId, title);
  if (!linked)
    return notice(
      say(input.locale, 'resolve.whichPlayer', {
        option: code(`${optionName(input.locale, 'player')}:`),
        title: TITLES[title].name,
        link: code(commandLine(input.locale, `/link title:${title} platform:<platform> player:<name>`)),
        player: code(optionName(input.locale, 'player')),
      }),
    );
  if (platform && platform !== linked.platform)
    return notice(
      say(input.locale, 'resolve.linkedElsewhere', { title: TITLES[title].name, linked: PLATFORMS[linked.platform].name, platform: PLATFORMS[platform].name }),
    );
  if (!endpoint.platforms.includes(linked.platform))
    return offerPlatforms(
      notice(
        say(input.locale, 'resolve.linkedNotCovered', {
          linked: PLATFORMS[linked.platform].name,
          title: TITLES[title].name,
          kind: say(input.locale, `kind.${kind}`),
          list: platformList(endpoint.platforms),
        }),
      ),
      input,
      title,
      kind,
      endpoint,
      linked.identifier,
      deps,
      linked.handle,
    );
  return { endpoint, platform: linked.platform, player: linked.identifier, handle: linked.handle };
}

/** The segment type a view opens on: maps where the title has them, else its first kind. */
export function defaultSegmentType(title: TitleSlug): string {
  const types = TITLES[title].segmentTypes.filter((s) => s.groupBy !== 'overview');
  return (types.find((s) => s.groupBy === 'map') ?? types[0])?.type ?? 'overview';
}

/**
 * A refusal of a platform the view is not served on, with a menu of the platforms it is served on
 * that opens the view there for the same player (`sw:`, `p:<platform>`). Without a view store, the
 * refusal alone.
 */
async function offerPlatforms(
  told: Reply,
  input: CommandInput,
  title: TitleSlug,
  kind: EndpointKind,
  endpoint: Endpoint,
  player: string,
  deps: Deps,
  handle?: string,
): Promise<Reply> {
  if (kind !== 'profile' && kind !== 'segments' && kind !== 'matches' && kind !== 'sessions') return told;
  const first = endpoint.platforms[0]!;
  const typed = stringOption(input, 'segment');
  const type = typed && TITLES[title].segmentTypes.some((s) => s.type === typed) ? typed : defaultSegmentType(title);
  const base = { title, platform: first, player, handle, ownerId: input.userId };
  const view: View = kind === 'segments' ? { kind, ...base, type } : { kind, ...base };
  let stateId: string;
  try {
    stateId = await deps.views.save(view);
  } catch {
    return told;
  }
  const options = endpoint.platforms.map((p) => ({ label: PLATFORMS[p].name, value: `p:${p}`, description: safeText(handle ?? player).slice(0, 100) }));
  return { ...told, components: rows(switchSelect(stateId, say(input.locale, 'resolve.openOn'), options)) };
}

export const isReply = (value: unknown): value is Reply => typeof value === 'object' && value !== null && 'embeds' in value && 'ephemeral' in value;
