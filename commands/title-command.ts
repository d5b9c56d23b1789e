// One title's part of `/stats`: a subcommand group whose subcommands are the endpoints the title
// has, with their options, handlers and autocomplete, all derived from the catalog.
import { SlashCommandSubcommandBuilder, SlashCommandSubcommandGroupBuilder } from 'discord.js';

import {
  PLATFORMS,
  QUEUES,
  TITLES,
  endpointsOf,
  platformsOfTitle,
  type Endpoint,
  type EndpointKind,
  type PlatformSlug,
  type Queue,
  type TitleSlug,
} from '../src/catalog/index.js';
import { profileCard, withCard } from '../src/cards/index.js';
import { LIMITS, clip, errorReply, matchLabel, matchReportReply, notice, platformList, profileReply, safeText, type Reply } from '../src/embeds/index.js';
import { choice, searchChoices } from './choices.js';
import { checkPlatform, endpointOf, integerOption, isReply, resolveTarget, stringOption } from './resolve.js';
import { AUTOCOMPLETE_DEADLINE_MS, COMMAND_DEADLINE_MS, type AutocompleteInput, type Choice, type CommandInput, type Deps, type View } from './types.js';
import { renderView } from './views.js';

const DESCRIPTIONS: Record<EndpointKind, string> = {
  profile: 'Career stats of a player',
  segments: 'Stats per map, weapon, mode, legend or hero',
  search: 'Find a player',
  matches: 'Recent matches of a player',
  match: 'The report of one match',
  sessions: 'Play sessions: matches played close together',
};

/** What a player option says: the identifier forms of every platform the endpoint serves. */
function playerHelp(endpoint: Endpoint): string {
  const forms = endpoint.platforms.map((p) => PLATFORMS[p].example).join(', ');
  return clip(`Player (e.g. ${forms}); leave out to use your linked account`, 100);
}

function subcommand(endpoint: Endpoint): SlashCommandSubcommandBuilder {
  const sub = new SlashCommandSubcommandBuilder().setName(endpoint.kind).setDescription(DESCRIPTIONS[endpoint.kind]);
  const platformOption = (required: boolean) =>
    sub.addStringOption((o) =>
      o
        .setName('platform')
        .setDescription(`Platform: ${endpoint.platforms.map((p) => PLATFORMS[p].name).join(', ')}`)
        .setRequired(required)
        .setAutocomplete(true),
    );
  const playerOption = () =>
    sub.addStringOption((o) => o.setName('player').setDescription(playerHelp(endpoint)).setMaxLength(200).setAutocomplete(true));
  switch (endpoint.kind) {
    case 'profile':
    case 'matches':
    case 'sessions':
      platformOption(false);
      playerOption();
      break;
    case 'segments':
      sub.addStringOption((o) =>
        o
          .setName('segment')
          .setDescription(`Kind of segment: ${TITLES[endpoint.title].segmentTypes.map((s) => s.type).join(', ')}`)
          .setRequired(true)
          .setAutocomplete(true),
      );
      platformOption(false);
      playerOption();
      if (endpoint.query.some((q) => q.name === 'queue'))
        sub.addStringOption((o) =>
          o
            .setName('queue')
            .setDescription('Only ranked or only social matches')
            .addChoices(...QUEUES.map((q) => ({ name: q, value: q }))),
        );
      if (endpoint.query.some((q) => q.name === 'season'))
        sub.addIntegerOption((o) => o.setName('season').setDescription('Season number (leave out for lifetime)').setMinValue(1).setMaxValue(10_000));
      break;
    case 'search':
      sub.addStringOption((o) => o.setName('query').setDescription('Name, id or (PC Store A) profile URL').setRequired(true).setMaxLength(200).setAutocomplete(true));
      platformOption(false);
      break;
    case 'match':
      sub.addStringOption((o) => o.setName('id').setDescription('Match id (pick one of your recent matches)').setRequired(true).setMaxLength(100).setAutocomplete(true));
      platformOption(false);
      break;
  }
  if (endpoint.kind === 'profile' || endpoint.kind === 'sessions')
    sub.addBooleanOption((o) => o.setName('card').setDescription('Attach the picture card (default yes); no: text only'));
  return sub;
}

const call = { deadlineMs: COMMAND_DEADLINE_MS };
const quick = { deadlineMs: AUTOCOMPLETE_DEADLINE_MS };

/** A platform for commands that can do without a player (search, match): typed, linked, or the only one. */
async function platformFor(input: CommandInput, endpoint: Endpoint, deps: Deps): Promise<PlatformSlug | Reply> {
  const typed = stringOption(input, 'platform');
  if (typed) return checkPlatform(endpoint, typed);
  if (endpoint.platforms.length === 1) return endpoint.platforms[0] as PlatformSlug;
  const linked = (await deps.links.get(input.userId, endpoint.title))?.platform;
  if (linked && endpoint.platforms.includes(linked)) return linked;
  return notice(`Choose a platform: ${platformList(endpoint.platforms)}.`);
}

async function openView(view: View, deps: Deps): Promise<Reply> {
  return renderView(view, await deps.views.save(view), 0, deps);
}

async function execute(title: TitleSlug, input: CommandInput, deps: Deps): Promise<Reply> {
  const kind = input.subcommand as EndpointKind;
  const endpoint = endpointOf(title, kind);
  switch (kind) {
    case 'profile': {
      const target = await resolveTarget(input, title, kind, deps);
      if (isReply(target)) return target;
      const r = await deps.lookup.profile(title, target.platform, target.player, call);
      return r.errors ? errorReply(r.errors[0]!, { title, ...target }) : withCard(profileReply(r.data, title, r.meta), profileCard(r.data, title), deps, input.options.card === false);
    }
    case 'segments': {
      const type = stringOption(input, 'segment') ?? '';
      const types = TITLES[title].segmentTypes.map((s) => s.type);
      if (!types.includes(type)) return notice(`${TITLES[title].name} has no \`${safeText(type)}\` segments. Choose one of: ${types.map((t) => `\`${t}\``).join(', ')}.`);
      const season = integerOption(input, 'season');
      if (season !== undefined && TITLES[title].lifetimeOnlySegmentTypes.includes(type))
        return notice(`${TITLES[title].name} ${type} stats exist for lifetime only: leave \`season\` out.`);
      const queue = stringOption(input, 'queue');
      if (queue !== undefined && !(QUEUES as readonly string[]).includes(queue)) return notice(`Queue must be one of: ${QUEUES.join(', ')}.`);
      const target = await resolveTarget(input, title, kind, deps);
      if (isReply(target)) return target;
      return openView({ kind: 'segments', title, platform: target.platform, player: target.player, type, queue: queue as Queue | undefined, season, ownerId: input.userId }, deps);
    }
    case 'matches':
    case 'sessions': {
      const target = await resolveTarget(input, title, kind, deps);
      if (isReply(target)) return target;
      const base = { title, platform: target.platform, player: target.player, ownerId: input.userId };
      return openView({ kind, ...base, ...(kind === 'sessions' && input.options.card === false ? { textOnly: true } : {}) }, deps);
    }
    case 'search': {
      const query = stringOption(input, 'query');
      if (!query) return notice('Type a name, an id or a profile URL to search for.');
      const platform = await platformFor(input, endpoint, deps);
      if (isReply(platform)) return platform;
      return openView({ kind: 'search', title, platform, query, ownerId: input.userId }, deps);
    }
    case 'match': {
      const id = stringOption(input, 'id');
      if (!id) return notice('Type a match id, or pick one of your recent matches.');
      const platform = await platformFor(input, endpoint, deps);
      if (isReply(platform)) return platform;
      const r = await deps.lookup.match(title, platform, id, call);
      return r.errors ? errorReply(r.errors[0]!, { title, platform }) : matchReportReply(r.data, title, r.meta);
    }
  }
}

const matches = (typed: string, ...texts: string[]) => typed.length === 0 || texts.some((t) => t.toLowerCase().includes(typed.toLowerCase()));

/** The player's platform as far as autocomplete can tell: typed (and allowed), linked, or the only one. */
async function autocompletePlatform(input: AutocompleteInput, endpoint: Endpoint, deps: Deps): Promise<PlatformSlug | undefined> {
  const typed = stringOption(input, 'platform');
  if (typed) {
    const checked = checkPlatform(endpoint, typed);
    return typeof checked === 'string' ? checked : undefined;
  }
  if (endpoint.platforms.length === 1) return endpoint.platforms[0];
  const linked = (await deps.links.get(input.userId, endpoint.title))?.platform;
  return linked && endpoint.platforms.includes(linked) ? linked : undefined;
}

/** Players whose handle starts with what was typed, then what was typed itself, last. */
async function playerChoices(input: AutocompleteInput, endpoint: Endpoint, deps: Deps): Promise<Choice[]> {
  const typed = input.focused.value.trim();
  const platform = await autocompletePlatform(input, endpoint, deps);
  const out: Choice[] = [];
  if (typed.length === 0) {
    const linked = await deps.links.get(input.userId, endpoint.title);
    if (linked && endpoint.platforms.includes(linked.platform)) out.push(choice(`${linked.handle} (your linked account)`, linked.identifier));
    return out;
  }
  return searchChoices(endpoint.title, platform, typed, deps);
}

async function segmentChoices(input: AutocompleteInput, title: TitleSlug, deps: Deps): Promise<Choice[]> {
  const typed = input.focused.value.trim();
  let withData: Map<string, number | undefined> | undefined;
  // Segment types the player has data for come first, when the player can be told already.
  const endpoint = endpointOf(title, 'segments');
  const platform = await autocompletePlatform(input, endpoint, deps);
  const player = stringOption(input, 'player') ?? (await deps.links.get(input.userId, title))?.identifier;
  if (platform && player) {
    const profileEndpoint = endpointOf(title, 'profile');
    const r = profileEndpoint.platforms.includes(platform) ? await deps.lookup.profile(title, platform, player, quick) : undefined;
    if (r?.data) withData = new Map(r.data.availableSegments.map((s) => [s.type, typeof s.metadata.count === 'number' ? s.metadata.count : undefined]));
  }
  const types = TITLES[title].segmentTypes.filter((s) => matches(typed, s.type, s.name));
  const ranked = withData ? [...types.filter((s) => withData.has(s.type)), ...types.filter((s) => !withData.has(s.type))] : types;
  return ranked.map((s) => {
    const count = withData?.get(s.type);
    const note = withData ? (withData.has(s.type) ? (count !== undefined ? ` · ${count} with data` : ' · has data') : ' · no data') : '';
    return choice(`${s.name} (${s.type})${note}`, s.type);
  });
}

async function matchChoices(input: AutocompleteInput, title: TitleSlug, deps: Deps): Promise<Choice[]> {
  const typed = input.focused.value.trim();
  const linked = await deps.links.get(input.userId, title);
  const out: Choice[] = [];
  const endpoint = endpointsOf(title).find((e) => e.kind === 'matches');
  if (linked && endpoint?.platforms.includes(linked.platform)) {
    const r = await deps.lookup.matches(title, linked.platform, linked.identifier, undefined, quick);
    for (const m of r.data?.matches ?? []) {
      const { label: where, description: when } = matchLabel(m);
      const label = `${where} · ${when}`;
      if (matches(typed, m.attributes.id, label)) out.push(choice(label, m.attributes.id));
      if (out.length >= LIMITS.choices - 1) break;
    }
  }
  if (typed && typed.length <= LIMITS.choiceValue && !out.some((c) => c.value === typed)) out.push(choice(typed, typed));
  return out;
}

/** Never throws: a subcommand or option it does not know gets no choices. */
async function autocomplete(title: TitleSlug, input: AutocompleteInput, deps: Deps): Promise<Choice[]> {
  const endpoint = endpointsOf(title).find((e) => e.kind === input.subcommand);
  if (!endpoint) return [];
  const typed = input.focused.value.trim();
  switch (input.focused.name) {
    case 'platform':
      return endpoint.platforms.filter((p) => matches(typed, p, PLATFORMS[p].name)).map((p) => choice(PLATFORMS[p].name, p));
    case 'player':
    case 'query':
      return playerChoices(input, endpoint, deps);
    case 'segment':
      return segmentChoices(input, title, deps);
    case 'id':
      return matchChoices(input, title, deps);
    default:
      return [];
  }
}

export interface TitleCommand {
  title: TitleSlug;
  group: SlashCommandSubcommandGroupBuilder;
  execute(input: CommandInput, deps: Deps): Promise<Reply>;
  autocomplete(input: AutocompleteInput, deps: Deps): Promise<Choice[]>;
}

/** The subcommand group of a title, with one subcommand per endpoint it has. */
export function titleCommand(title: TitleSlug): TitleCommand {
  const group = new SlashCommandSubcommandGroupBuilder()
    .setName(title)
    .setDescription(`${TITLES[title].name} stats (${platformsOfTitle(title).map((p) => PLATFORMS[p].name).join(', ')})`);
  for (const endpoint of endpointsOf(title)) group.addSubcommand(subcommand(endpoint));
  return {
    title,
    group,
    execute: (input, deps) => execute(title, input, deps),
    autocomplete: (input, deps) => autocomplete(title, input, deps),
  };
}
