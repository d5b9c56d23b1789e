// /compare <title> <player> [platform] [other] [other_platform]: two careers side by side. The other
// player defaults to the invoker's linked account; a typed other defaults to the first one's platform.

import { PLATFORMS, TITLES, isTitle, type TitleSlug } from '../src/catalog/index.js';
import { compareCard, withCard } from '../src/cards/index.js';
import { code, compareReply, errorReply, notice, safeText, unbroken, type Reply } from '../src/embeds/index.js';
import { platformChoices, searchChoices } from './choices.js';
import { cardOption } from './kind.js';
import { checkPlatform, endpointOf, isReply, resolveTarget, stringOption, titleChoices, titleOf, type Target } from './resolve.js';
import { COMMAND_DEADLINE_MS, type AutocompleteInput, type Choice, type Command, type CommandInput, type Deps } from './types.js';
import { installableCommand } from './installs.js';
import { commandLine, optionName, say } from '../src/locales/index.js';

const call = { deadlineMs: COMMAND_DEADLINE_MS };

async function side(title: TitleSlug, target: Target, deps: Deps, locale: string | undefined) {
  const r = await deps.lookup.profile(title, target.platform, target.player, call);
  return r.errors
    ? errorReply(r.errors[0]!, { title, platform: target.platform, player: target.handle ?? target.player, locale })
    : { profile: r.data, meta: r.meta };
}

function data() {
  const builder = installableCommand()
    .setName('compare')
    .setDescription('Two players side by side; the other is your linked account unless you name one')
    .addStringOption((o) =>
      o
        .setName('title')
        .setDescription('The title')
        .setRequired(true)
        .addChoices(...titleChoices),
    )
    .addStringOption((o) => o.setName('player').setDescription('A player (name or id)').setRequired(true).setMaxLength(200).setAutocomplete(true))
    .addStringOption((o) => o.setName('platform').setDescription('Their platform').setMaxLength(100).setAutocomplete(true))
    .addStringOption((o) => o.setName('other').setDescription('Compare with (default: your linked account)').setMaxLength(200).setAutocomplete(true))
    .addStringOption((o) =>
      o.setName('other_platform').setDescription('The other player’s platform (default: the first one’s)').setMaxLength(100).setAutocomplete(true),
    );
  cardOption(builder);
  return builder.toJSON();
}

export const compare = {
  data: data(),

  async execute(input: CommandInput, deps: Deps): Promise<Reply> {
    const title = titleOf(input);
    if (typeof title !== 'string') return title;
    const first = await resolveTarget(input, title, 'profile', deps);
    if (isReply(first)) return first;
    const other = stringOption(input, 'other');
    // No other player named: the invoker's link, when there is one the title has profiles for; else say how to name one.
    if (!other) {
      const linked = await deps.links.get(input.userId, title);
      const words = { name: safeText(first.handle ?? first.player), other: code(`${optionName(input.locale, 'other')}:`), title: TITLES[title].name };
      if (!linked) return notice(say(input.locale, 'compare.withWhom', { ...words, link: code(commandLine(input.locale, '/link')) }));
      if (!first.endpoint.platforms.includes(linked.platform))
        return notice(say(input.locale, 'compare.linkNotProfiled', { ...words, linked: unbroken(PLATFORMS[linked.platform].name) }));
    }
    const otherPlatform = stringOption(input, 'other_platform') ?? (other ? first.platform : undefined);
    const second = await resolveTarget(
      { ...input, options: { ...(otherPlatform ? { platform: otherPlatform } : {}), ...(other ? { player: other } : {}) } },
      title,
      'profile',
      deps,
    );
    // A link on another platform than other_platform names is told as such.
    if (isReply(second)) return second;
    if (second.platform === first.platform && second.player.toLowerCase() === first.player.toLowerCase())
      return notice(say(input.locale, 'compare.samePlayer', { other: code(`${optionName(input.locale, 'other')}:`) }));
    const [a, b] = await Promise.all([side(title, first, deps, input.locale), side(title, second, deps, input.locale)]);
    if (isReply(a)) return a;
    if (isReply(b)) return b;
    // The same account by two names (a vanity name and the id, a URL): by what the service says it is.
    const account = (s: typeof a) => {
      const id = s.profile.platformInfo.platformUserIdentifier;
      return id ? `${s.profile.platformInfo.platformSlug}:${id.toLowerCase()}` : undefined;
    };
    if (account(a) !== undefined && account(a) === account(b))
      return notice(say(input.locale, 'compare.samePlayer', { other: code(`${optionName(input.locale, 'other')}:`) }));
    return withCard(compareReply(title, a, b, input.locale), () => compareCard(title, a.profile, b.profile, input.locale), deps, input.options.card === false);
  },

  async autocomplete(input: AutocompleteInput, deps: Deps): Promise<Choice[]> {
    const title = stringOption(input, 'title');
    if (!title || !isTitle(title)) return [];
    const endpoint = endpointOf(title, 'profile');
    const typed = input.focused.value.trim();
    if (input.focused.name === 'platform' || input.focused.name === 'other_platform') return platformChoices(endpoint, typed);
    if ((input.focused.name !== 'player' && input.focused.name !== 'other') || !typed) return [];
    const platformTyped = stringOption(input, input.focused.name === 'other' ? 'other_platform' : 'platform') ?? stringOption(input, 'platform');
    // Read as the command reads it: by slug or by name, in any case.
    const typedSlug = platformTyped ? checkPlatform(endpoint, platformTyped) : undefined;
    const platform =
      (typeof typedSlug === 'string' ? typedSlug : undefined) ??
      (endpoint.platforms.length === 1 ? endpoint.platforms[0] : (await deps.links.get(input.userId, title))?.platform);
    return searchChoices(title, platform, typed, deps);
  },
} satisfies Command;
