// The contract of an endpoint kind's module (profile, segments, matches, match, sessions, search):
// its options, its handler, its autocomplete and, for replies with controls, its view. `/stats` is
// assembled from these per title (`index.ts`): adding an endpoint kind is adding one module.
import type { SlashCommandBooleanOption, SlashCommandSubcommandBuilder } from 'discord.js';

import { PLATFORMS, type Endpoint, type EndpointKind, type TitleSlug } from '../src/catalog/index.js';
import { clip, type Reply } from '../src/embeds/index.js';
import type { AutocompleteInput, Choice, CommandInput, Deps, View } from './types.js';

export interface EndpointCommand {
  kind: EndpointKind;
  description: string;
  /** Adds the subcommand's options for one title's endpoint of this kind. */
  options(sub: SlashCommandSubcommandBuilder, endpoint: Endpoint): void;
  execute(title: TitleSlug, input: CommandInput, deps: Deps): Promise<Reply>;
  /** Choices for the options this kind owns; `undefined` leaves the option to the shared choices. */
  autocomplete?(title: TitleSlug, input: AutocompleteInput, deps: Deps): Promise<Choice[] | undefined>;
}

/** Drawing a page of a view again (for a button), and going on from it. */
export interface ViewHandler<V extends View = View> {
  render: (view: V, stateId: string, page: number, deps: Deps, locale?: string) => Promise<Reply>;
  /** Opens what was picked from the view's menu (a match report, a profile). */
  open?: (view: V, stateId: string, value: string, deps: Deps, locale?: string) => Promise<Reply>;
  /** The view its switch menu's pick turns it into (another segment type, season or queue); undefined for a pick it does not know. */
  switch?: (view: V, value: string) => V | undefined;
}

/** The platform option: autocompleted with the platforms this endpoint serves. */
export function platformOption(sub: SlashCommandSubcommandBuilder, endpoint: Endpoint, required = false): void {
  sub.addStringOption((o) =>
    o
      .setName('platform')
      .setDescription(`Platform: ${endpoint.platforms.map((p) => PLATFORMS[p].name).join(', ')}`)
      .setRequired(required)
      .setMaxLength(100)
      .setAutocomplete(true),
  );
}

/** The player option: the identifier forms of every platform the endpoint serves, or the linked account. */
export function playerOption(sub: SlashCommandSubcommandBuilder, endpoint: Endpoint): void {
  const forms = endpoint.platforms.map((p) => PLATFORMS[p].example).join(', ');
  sub.addStringOption((o) =>
    o
      .setName('player')
      .setDescription(clip(`Player (e.g. ${forms}); leave out to use your linked account`, 100))
      .setMaxLength(200)
      .setAutocomplete(true),
  );
}

/** Options of the kinds that show one player: platform and player, both optional. */
export function playerOptions(sub: SlashCommandSubcommandBuilder, endpoint: Endpoint): SlashCommandSubcommandBuilder {
  platformOption(sub, endpoint);
  playerOption(sub, endpoint);
  return sub;
}

/** `card:false`: the reply without its picture card (profile, sessions, compare). */
export function cardOption(sub: { addBooleanOption(input: (o: SlashCommandBooleanOption) => SlashCommandBooleanOption): unknown }): void {
  sub.addBooleanOption((o) => o.setName('card').setDescription('Attach the picture card (default yes); no: text only'));
}
