// Every command of the bot: `/stats` (a subcommand group per title, a subcommand per endpoint the
// title has, each from its kind's module), `/link` and `/unlink`.
import { SlashCommandSubcommandBuilder, SlashCommandSubcommandGroupBuilder } from 'discord.js';

import {
  ENDPOINT_KINDS,
  PLATFORMS,
  TITLES,
  TITLE_SLUGS,
  endpointsOf,
  findEndpoint,
  isTitle,
  platformsOfTitle,
  type EndpointKind,
} from '../src/catalog/index.js';
import { code, notice } from '../src/embeds/index.js';
import { sharedChoices } from './choices.js';
import type { EndpointCommand } from './kind.js';
import { compare } from './compare.js';
import { leaderboard } from './leaderboard.js';
import { link, unlink } from './link.js';
import { match } from './match.js';
import { matches } from './matches.js';
import { profile } from './profile.js';
import { search } from './search.js';
import { segments } from './segments.js';
import { sessions } from './sessions.js';
import { track } from './track.js';
import { settings } from './settings.js';
import type { Command } from './types.js';
import { installableCommand } from './installs.js';
import { commandLine, localizeCommand, say } from '../src/locales/index.js';

/** One module per endpoint kind. */
export const KINDS: { [K in EndpointKind]: EndpointCommand & { kind: K } } = { profile, segments, matches, match, sessions, search };

const statsBuilder = installableCommand().setName('stats').setDescription('Player statistics for Title A, B, C and D');
for (const title of TITLE_SLUGS) {
  const group = new SlashCommandSubcommandGroupBuilder().setName(title).setDescription(
    `${TITLES[title].name} stats (${platformsOfTitle(title)
      .map((p) => PLATFORMS[p].name)
      .join(', ')})`,
  );
  for (const endpoint of endpointsOf(title)) {
    const kind = KINDS[endpoint.kind];
    const sub = new SlashCommandSubcommandBuilder().setName(endpoint.kind).setDescription(kind.description);
    kind.options(sub, endpoint);
    group.addSubcommand(sub);
  }
  statsBuilder.addSubcommandGroup(group);
}

const isKind = (value: string | null): value is EndpointKind => value !== null && (ENDPOINT_KINDS as readonly string[]).includes(value);

export const stats = {
  data: statsBuilder.toJSON(),
  execute: async (input, deps) => {
    const title = input.group;
    if (!title || !isTitle(title) || !isKind(input.subcommand) || !findEndpoint(title, input.subcommand))
      return notice(say(input.locale, 'bot.unknownSubcommand', { example: code(commandLine(input.locale, '/stats title_c profile')) }));
    return KINDS[input.subcommand].execute(title, input, deps);
  },
  /** Never throws for what it does not know: no choices. */
  autocomplete: async (input, deps) => {
    const title = input.group;
    const endpoint = title && isTitle(title) && isKind(input.subcommand) ? findEndpoint(title, input.subcommand) : undefined;
    if (!endpoint) return [];
    return (await KINDS[endpoint.kind].autocomplete?.(endpoint.title, input, deps)) ?? sharedChoices(input, endpoint, deps);
  },
} satisfies Command;

/** Every command, its names and descriptions in each language the bot speaks (`src/locales/`). */
export const commands: readonly Command[] = [stats, link, unlink, compare, leaderboard, track, settings].map((c): Command => ({
  ...c,
  data: localizeCommand(c.data),
}));

export function findCommand(name: string): Command | undefined {
  return commands.find((c) => c.data.name === name);
}

export type {
  AutocompleteInput,
  ChannelPoster,
  Choice,
  Command,
  CommandInput,
  Deps,
  FeedStore,
  FeedSubscription,
  GuildFeed,
  LinkedAccount,
  LinkStore,
  MemberStore,
  OptionValue,
  SnapshotStore,
  HistoryStore,
  ServerSettings,
  ServerSettingsStore,
  StoredGrant,
  Verification,
  VerifyState,
  VerifyStore,
  View,
  ViewStore,
} from './types.js';
export { goFromView, openFromView, renderView, switchFromView } from './views.js';
export { StoreUnavailableError } from './types.js';
