// /stats <title> segments: stats per map, weapon, mode, playlist, legend or hero, as a table.
import { QUEUES, TITLES, findEndpoint, type Queue, type TitleSlug } from '../src/catalog/index.js';
import {
  code,
  errorReply,
  namedSlug,
  notice,
  queueName,
  segmentTypeName,
  segmentTypeOf,
  segmentsReply,
  typedSegmentType,
  type Reply,
  type SegmentsContext,
} from '../src/embeds/index.js';
import { within } from '../src/lookup/within.js';
import { choice, matchesTyped } from './choices.js';
import { playerOptions, type EndpointCommand, type ViewHandler } from './kind.js';
import { onwardOf, openView, shownName } from './onward.js';
import { choosePlatform, endpointOf, integerOption, isReply, resolveTarget, stringOption } from './resolve.js';
import { AUTOCOMPLETE_DEADLINE_MS, COMMAND_DEADLINE_MS, type AutocompleteInput, type Choice, type Deps, type View } from './types.js';
import { optionName, say, sayCount } from '../src/locales/index.js';

type SegmentsView = Extract<View, { kind: 'segments' }>;

const call = { deadlineMs: COMMAND_DEADLINE_MS };

/**
 * What a segments reply can switch to: the segment types the player's profile lists (with their
 * seasons and queues on title_a), else every type of the title. The profile comes through the
 * lookup cache (the player usually came from it); without it in time, only the types are offered.
 */
async function switchTargets(view: SegmentsView, deps: Deps): Promise<NonNullable<SegmentsContext['switchTo']>> {
  const all = { types: TITLES[view.title].segmentTypes.map((t) => t.type), seasons: [] as number[], queues: [] as string[] };
  if (!findEndpoint(view.title, 'profile')?.platforms.includes(view.platform)) return all;
  const r = await deps.lookup.profile(view.title, view.platform, view.player, call);
  const listed = r.data?.availableSegments ?? [];
  if (listed.length === 0) return all;
  const numbers = (v: unknown) => (Array.isArray(v) ? v.filter((n): n is number => Number.isInteger(n) && n > 0) : []);
  const texts = (v: unknown) => (Array.isArray(v) ? v.filter((q): q is string => typeof q === 'string' && (QUEUES as readonly string[]).includes(q)) : []);
  const known = new Set(all.types);
  return {
    types: listed.map((s) => s.type).filter((t) => known.has(t)),
    seasons: [...new Set(listed.flatMap((s) => numbers(s.metadata.seasons)))],
    queues: [...new Set(listed.flatMap((s) => texts(s.metadata.queues)))],
  };
}

async function render(view: SegmentsView, stateId: string, page: number, deps: Deps, locale?: string): Promise<Reply> {
  const filter = { queue: view.queue, season: view.season };
  const [r, player, switchTo] = await Promise.all([
    deps.lookup.segments(view.title, view.platform, view.player, view.type, filter, call),
    shownName(view, deps, call.deadlineMs),
    switchTargets(view, deps).catch((e: unknown) => {
      deps.logger.warn({ err: (e as Error).message }, 'segments: no switch menu');
      return undefined;
    }),
  ]);
  if (r.errors) return errorReply(r.errors[0]!, { title: view.title, platform: view.platform, player: view.handle ?? view.player, locale });
  return segmentsReply(r.data, { ...view, player, filter, meta: r.meta, page, stateId, locale, onward: onwardOf(view, stateId, locale), switchTo });
}

/** A switch menu's pick (`t:<type>`, `s:<season>`, `q:<queue>`; empty for lifetime or both queues) as the view it turns into. */
function switchTo(view: SegmentsView, value: string): SegmentsView | undefined {
  const [kind, rest = ''] = [value.slice(0, 2), value.slice(2)];
  switch (kind) {
    case 't:': {
      if (!TITLES[view.title].segmentTypes.some((t) => t.type === rest)) return undefined;
      // A type kept for the lifetime only refuses a season: it goes.
      const lifetimeOnly = TITLES[view.title].lifetimeOnlySegmentTypes.includes(rest);
      return { ...view, type: rest, ...(lifetimeOnly ? { season: undefined } : {}) };
    }
    case 's:': {
      if (rest === '') return { ...view, season: undefined };
      const season = Number(rest);
      return Number.isInteger(season) && season >= 1 && season <= 10_000 ? { ...view, season } : undefined;
    }
    case 'q:':
      if (rest === '') return { ...view, queue: undefined };
      return (QUEUES as readonly string[]).includes(rest) ? { ...view, queue: rest as Queue } : undefined;
    default:
      return undefined;
  }
}

export const segmentsView: ViewHandler<SegmentsView> = { render, switch: switchTo };

/**
 * The segment types the player has data for (and how many of each), when the player can be told and
 * the store and the service answer within the autocomplete's deadline; otherwise undefined.
 */
async function typesWithData(title: TitleSlug, input: AutocompleteInput, deps: Deps): Promise<Map<string, number | undefined> | undefined> {
  const platform = await choosePlatform(input, endpointOf(title, 'segments'), deps);
  const player = stringOption(input, 'player') ?? (await deps.links.get(input.userId, title))?.identifier;
  if (typeof platform !== 'string' || !player || !endpointOf(title, 'profile').platforms.includes(platform)) return undefined;
  const r = await deps.lookup.profile(title, platform, player, { deadlineMs: AUTOCOMPLETE_DEADLINE_MS });
  return r.data ? new Map(r.data.availableSegments.map((s) => [s.type, typeof s.metadata.count === 'number' ? s.metadata.count : undefined])) : undefined;
}

/**
 * Segment types, those the player has data for first when that can be told in time. The types
 * themselves are always offered: a link store or a service down or slow only loses the ranking.
 */
async function segmentChoices(title: TitleSlug, input: AutocompleteInput, deps: Deps): Promise<Choice[]> {
  const { locale } = input;
  const typed = input.focused.value.trim();
  // The counts are the career's (the profile's list of segments): with a queue or a season typed
  // they would promise what the filtered reply does not have, so the types come plain, and with a
  // season, those kept for the lifetime only (which refuse one) are left out.
  const season = integerOption(input, 'season') !== undefined;
  const filtered = season || stringOption(input, 'queue') !== undefined;
  let withData: Map<string, number | undefined> | undefined;
  try {
    const found = filtered ? undefined : await within(typesWithData(title, input, deps), AUTOCOMPLETE_DEADLINE_MS);
    if (found?.done) withData = found.value;
  } catch (e) {
    deps.logger.warn({ err: (e as Error).message }, 'segment autocomplete: no data ranking');
  }
  const named = TITLES[title].segmentTypes
    .filter((s) => !(season && TITLES[title].lifetimeOnlySegmentTypes.includes(s.type)))
    .map((s) => ({ ...s, name: segmentTypeName(s.type, locale) ?? s.name }));
  const types = named.filter((s) => matchesTyped(typed, s.type, s.name));
  const ranked = withData ? [...types.filter((s) => withData.has(s.type)), ...types.filter((s) => !withData.has(s.type))] : types;
  return ranked.map((s) => {
    const count = withData?.get(s.type);
    const note = withData
      ? ` · ${withData.has(s.type) ? (count !== undefined ? say(locale, 'choice.withData', { n: count }) : say(locale, 'choice.hasData')) : say(locale, 'choice.noData')}`
      : '';
    // The name a player knows; the value (what is sent) is the type, so the key itself is not shown.
    return choice(`${s.name}${note}`, s.type);
  });
}

/**
 * The seasons the player has data for (their profile's list, for the segment type typed where it
 * has one), newest first, those starting with what was typed; none when the player cannot be told
 * in time (what was typed is still taken).
 */
async function seasonChoices(title: TitleSlug, input: AutocompleteInput, deps: Deps): Promise<Choice[]> {
  const platform = await choosePlatform(input, endpointOf(title, 'segments'), deps);
  const player = stringOption(input, 'player') ?? (await deps.links.get(input.userId, title))?.identifier;
  if (typeof platform !== 'string' || !player || !endpointOf(title, 'profile').platforms.includes(platform)) return [];
  const r = await deps.lookup.profile(title, platform, player, { deadlineMs: AUTOCOMPLETE_DEADLINE_MS });
  const listed = r.data?.availableSegments ?? [];
  const typedType = stringOption(input, 'segment');
  const ofType = listed.filter((s) => s.type === typedType);
  const seasons = new Set(
    (ofType.length > 0 ? ofType : listed).flatMap((s) =>
      Array.isArray(s.metadata.seasons) ? s.metadata.seasons.filter((n): n is number => Number.isInteger(n) && n > 0) : [],
    ),
  );
  const typed = input.focused.value.trim();
  return [...seasons]
    .sort((a, b) => b - a)
    .filter((n) => String(n).startsWith(typed))
    .map((n) => choice(say(input.locale, 'report.season', { n }), String(n)));
}

export const segments = {
  kind: 'segments',
  description: 'Stats per map, weapon, mode, legend or hero',
  options(sub, endpoint) {
    sub.addStringOption((o) =>
      o
        .setName('segment')
        .setDescription(`Kind of segment: ${TITLES[endpoint.title].segmentTypes.map((s) => s.type).join(', ')}`)
        .setRequired(true)
        .setMaxLength(100)
        .setAutocomplete(true),
    );
    playerOptions(sub, endpoint);
    if (endpoint.query.some((q) => q.name === 'queue'))
      sub.addStringOption((o) =>
        o
          .setName('queue')
          .setDescription('Only ranked or only social matches')
          .addChoices(...QUEUES.map((q) => ({ name: queueName(q), value: q }))),
      );
    if (endpoint.query.some((q) => q.name === 'season'))
      sub.addIntegerOption((o) =>
        o.setName('season').setDescription('Season number (leave out for lifetime)').setMinValue(1).setMaxValue(10_000).setAutocomplete(true),
      );
  },
  async execute(title: TitleSlug, input, deps) {
    const typed = stringOption(input, 'segment') ?? '';
    const types = TITLES[title].segmentTypes;
    // Typed past the choices: the type by its slug or its name as the list shows it, in any case (as a platform is taken).
    const type = segmentTypeOf(typed, input.locale, types) ?? typed;
    if (!types.some((s) => s.type === type))
      return notice(
        sayCount(input.locale, 'segments.noType', types.length, {
          title: TITLES[title].name,
          type: typedSegmentType(typed, input.locale),
          list: types.map((s) => namedSlug(segmentTypeName(s.type, input.locale) ?? s.name, s.type)).join(', '),
        }),
      );
    const season = integerOption(input, 'season');
    if (season !== undefined && TITLES[title].lifetimeOnlySegmentTypes.includes(type))
      return notice(
        say(input.locale, 'segments.lifetimeOnly', {
          title: TITLES[title].name,
          type: segmentTypeName(type, input.locale) ?? type,
          season: code(optionName(input.locale, 'season')),
        }),
      );
    const queue = stringOption(input, 'queue');
    if (queue !== undefined && !(QUEUES as readonly string[]).includes(queue))
      return notice(say(input.locale, 'segments.queue', { list: QUEUES.map((q) => namedSlug(queueName(q, input.locale), q)).join(', ') }));
    const target = await resolveTarget(input, title, 'segments', deps);
    if (isReply(target)) return target;
    const view: SegmentsView = {
      kind: 'segments',
      title,
      platform: target.platform,
      player: target.player,
      handle: target.handle,
      type,
      queue: queue as Queue | undefined,
      season,
      ownerId: input.userId,
    };
    return openView(view, deps, (v, id) => render(v, id, 0, deps, input.locale));
  },
  autocomplete: async (title, input, deps) =>
    input.focused.name === 'segment' ? segmentChoices(title, input, deps) : input.focused.name === 'season' ? seasonChoices(title, input, deps) : undefined,
} satisfies EndpointCommand;
