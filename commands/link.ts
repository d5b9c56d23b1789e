// /link and /unlink: remember a Discord user's account per title, so that `player` can be left out.

import { PLATFORMS, TITLES, findEndpoint, isTitle, platformsOfTitle, type PlatformSlug, type TitleSlug } from '../src/catalog/index.js';
import {
  TITLE_COLORS,
  code,
  embedReply,
  errorReply,
  notice,
  platformList,
  platformOf,
  safeText,
  titleName,
  unbroken,
  type ActionRow,
  type Reply,
} from '../src/embeds/index.js';
import { searchChoices } from './choices.js';
import { stringOption, titleChoices, titleOf } from './resolve.js';
import { COMMAND_DEADLINE_MS, type AutocompleteInput, type Choice, type Command, type CommandInput, type Deps, type LinkedAccount } from './types.js';
import { installableCommand } from './installs.js';
import type { LookupError } from '../src/lookup/errors.js';
import { commandLine, optionName, say } from '../src/locales/index.js';

/** An account as the service knows it. */
export type FoundAccount = { handle: string; identifier: string; private?: true };

/**
 * Looks the account up: a profile where the title has one on that platform, else its segments. The
 * service's error as it came when there is no account to show (a private profile is one, as typed).
 */
export async function findAccount(
  title: TitleSlug,
  platform: PlatformSlug,
  player: string,
  deps: Pick<Deps, 'lookup'>,
): Promise<{ account: FoundAccount } | { error: LookupError }> {
  const call = { deadlineMs: COMMAND_DEADLINE_MS };
  if (findEndpoint(title, 'profile')?.platforms.includes(platform)) {
    const r = await deps.lookup.profile(title, platform, player, call);
    // An empty identifier or handle (a compatible service may send one) would make a link that reads back as none.
    if (r.data)
      return { account: { handle: r.data.platformInfo.platformUserHandle || player, identifier: r.data.platformInfo.platformUserIdentifier || player } };
    const error = r.errors[0]!;
    // Linked as typed (a private profile is not shown, its spelling neither), and told it is private.
    return error.kind === 'private' ? { account: { handle: player, identifier: player, private: true } } : { error };
  }
  const type = TITLES[title].segmentTypes[0]?.type ?? '';
  const r = await deps.lookup.segments(title, platform, player, type, {}, call);
  return r.errors ? { error: r.errors[0]! } : { account: { handle: player, identifier: player } };
}

/** The account checked against the service, or the reply that says why it cannot be linked. */
export async function checkAccount(
  title: TitleSlug,
  platform: PlatformSlug,
  player: string,
  deps: Pick<Deps, 'lookup'>,
  locale: string | undefined,
): Promise<FoundAccount | Reply> {
  const found = await findAccount(title, platform, player, deps);
  return 'account' in found ? found.account : errorReply(found.error, { title, platform, player, locale });
}

/**
 * Records that a user is in a server (for its leaderboard), after what they asked for is done: a
 * store that fails costs them a place on the board until their next command, not their answer.
 */
export async function recordMember(guildId: string, userId: string, deps: Deps): Promise<void> {
  try {
    await deps.members.add(guildId, userId);
  } catch (e) {
    deps.logger.warn({ err: (e as Error).message, guildId }, 'member store failed: the member is recorded at their next command');
  }
}

/** The title's platform the `platform` option names, by its slug or its name as a player may type it (`PC Store C`). */
function linkPlatform(input: CommandInput, title: TitleSlug): PlatformSlug | undefined {
  const known = platformOf(stringOption(input, 'platform') ?? '');
  return known && platformsOfTitle(title).includes(known) ? known : undefined;
}

/**
 * The account linked before this /link or /unlink, if any: a store that cannot say costs what
 * depends on it (the note of what a link replaces, an unlinked grant's revocation), not the command (and is logged).
 */
async function previousLink(input: CommandInput, title: TitleSlug, deps: Deps): Promise<LinkedAccount | undefined> {
  try {
    return await deps.links.get(input.userId, title);
  } catch (e) {
    deps.logger.warn({ err: (e as Error).message }, 'link store failed reading the account linked before: the command goes on without it');
    return undefined;
  }
}

/** A link button to the web side's `/verify`. */
function verifyButton(url: string, locale: string | undefined): ActionRow {
  return { type: 1, components: [{ type: 2, style: 5, label: say(locale, 'link.verifyButton'), url, emoji: { name: '✅' } }] };
}

export const link = {
  data: installableCommand()
    .setName('link')
    .setDescription('Remember your player account for a title, so that you can leave `player` out')
    .addStringOption((o) =>
      o
        .setName('title')
        .setDescription('The title')
        .setRequired(true)
        .addChoices(...titleChoices),
    )
    .addStringOption((o) => o.setName('platform').setDescription('Your platform').setRequired(true).setMaxLength(100).setAutocomplete(true))
    .addStringOption((o) => o.setName('player').setDescription('Your name or id on that platform').setRequired(true).setMaxLength(200).setAutocomplete(true))
    .toJSON(),

  async execute(input: CommandInput, deps: Deps): Promise<Reply> {
    const title = titleOf(input);
    if (typeof title !== 'string') return title;
    const platform = linkPlatform(input, title);
    if (!platform) return notice(say(input.locale, 'link.platforms', { title: titleName(title), list: platformList(platformsOfTitle(title)) }));
    const player = stringOption(input, 'player');
    if (!player) return notice(say(input.locale, 'link.typePlayer'));
    // The account linked before is read while the service is asked (a store that does not answer costs its deadline once, not twice).
    const [checked, before] = await Promise.all([checkAccount(title, platform, player, deps, input.locale), previousLink(input, title, deps)]);
    if ('embeds' in checked) return checked;
    // A verified account is not replaced by a typed one without the member's say (an /unlink first).
    const sameAccount = before && before.platform === platform && before.identifier.toLowerCase() === checked.identifier.toLowerCase();
    if (before?.verified && !sameAccount)
      return notice(
        say(input.locale, 'link.verifiedKept', {
          title: titleName(title),
          handle: safeText(before.handle),
          platform: unbroken(PLATFORMS[before.platform].name),
          unlink: code(commandLine(input.locale, `/unlink title:${title}`)),
        }),
      );
    await deps.links.set(input.userId, title, {
      platform,
      identifier: checked.identifier,
      handle: checked.handle,
      ...(sameAccount && before.verified ? { verified: true } : {}),
    });
    // Another account linked before is named, so that the user knows it is no longer the one used.
    const replaced = before && (before.platform !== platform || before.identifier.toLowerCase() !== checked.identifier.toLowerCase()) ? before : undefined;
    if (input.guildId) await recordMember(input.guildId, input.userId, deps);
    return embedReply(
      {
        color: TITLE_COLORS[title],
        title: say(input.locale, 'link.doneTitle', { handle: safeText(checked.handle) }),
        description:
          say(input.locale, 'link.done', {
            title: titleName(title),
            handle: safeText(checked.handle),
            platform: unbroken(PLATFORMS[platform].name),
            // The view this platform has: title_b's pc_store_c players have segments and no profile.
            profile: code(
              commandLine(input.locale, `/stats ${title} ${findEndpoint(title, 'profile')?.platforms.includes(platform) ? 'profile' : 'segments'}`),
            ),
            player: code(optionName(input.locale, 'player')),
            unlink: code(commandLine(input.locale, `/unlink title:${title}`)),
          }) +
          (checked.private ? `\n${say(input.locale, 'link.private')}` : '') +
          (replaced
            ? `\n${say(input.locale, 'link.replaced', { handle: safeText(replaced.handle ?? replaced.identifier), platform: unbroken(PLATFORMS[replaced.platform].name) })}`
            : '') +
          (deps.verification && !before?.verified ? `\n${say(input.locale, 'link.verifyHint')}` : ''),
      },
      deps.verification && !before?.verified ? [verifyButton(deps.verification.url, input.locale)] : [],
      true,
    );
  },

  async autocomplete(input: AutocompleteInput, deps: Deps): Promise<Choice[]> {
    const title = stringOption(input, 'title');
    if (!title || !isTitle(title)) return [];
    const typed = input.focused.value.trim();
    const platforms = platformsOfTitle(title);
    if (input.focused.name === 'platform')
      return platforms
        .filter((p) => !typed || p.includes(typed.toLowerCase()) || PLATFORMS[p].name.toLowerCase().includes(typed.toLowerCase()))
        .map((p) => ({ name: PLATFORMS[p].name, value: p }));
    if (input.focused.name !== 'player' || !typed) return [];
    return searchChoices(title, linkPlatform(input, title), typed, deps);
  },
} satisfies Command;

export const unlink = {
  data: installableCommand()
    .setName('unlink')
    .setDescription('Forget the player account you linked for a title')
    .addStringOption((o) =>
      o
        .setName('title')
        .setDescription('The title')
        .setRequired(true)
        .addChoices(...titleChoices),
    )
    .toJSON(),

  async execute(input: CommandInput, deps: Deps): Promise<Reply> {
    const title = titleOf(input);
    if (typeof title !== 'string') return title;
    const before = await previousLink(input, title, deps);
    const removed = await deps.links.delete(input.userId, title);
    // With no verified account left, the member's Discord grant goes, and their rank roles with it.
    if (removed && before?.verified && deps.verification)
      await deps.verification
        .forget(input.userId)
        .catch((e: unknown) => deps.logger.warn({ err: (e as Error).message }, 'unlink: the Discord grant was not forgotten'));
    return notice(say(input.locale, removed ? 'unlink.done' : 'unlink.none', { title: titleName(title) }));
  },
} satisfies Command;
