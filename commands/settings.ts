// /settings: a server's own rules for its leaderboard and session feed. Anyone sees how they stand;
// members with Manage Server change them: the fewest matches to be ranked, and whether the board and
// the feed take verified accounts only (linked through Discord, `/verify`).
import { notice, type Reply } from '../src/embeds/index.js';
import { say } from '../src/locales/index.js';
import { installableCommand } from './installs.js';
import { BOARD_MIN_MATCHES } from './leaderboard.js';
import { booleanOption, integerOption } from './resolve.js';
import type { Command, CommandInput, Deps, ServerSettings } from './types.js';

/** How a server's settings stand, a line each, in the reader's language. */
function settingsLines(settings: ServerSettings, locale: string | undefined): string[] {
  return [
    say(locale, 'settings.boardMin', { n: settings.boardMinMatches ?? BOARD_MIN_MATCHES }),
    say(locale, settings.boardVerifiedOnly ? 'settings.boardVerified' : 'settings.boardEveryone'),
    say(locale, settings.feedVerifiedOnly ? 'settings.feedVerified' : 'settings.feedEveryone'),
  ];
}

export const settings = {
  data: installableCommand()
    .setName('settings')
    .setDescription('This server’s leaderboard and session feed settings (Manage Server to change)')
    .addIntegerOption((o) =>
      o.setName('min_matches').setDescription(`Fewest matches to be ranked (default ${BOARD_MIN_MATCHES})`).setMinValue(0).setMaxValue(100_000),
    )
    .addBooleanOption((o) => o.setName('board_verified_only').setDescription('Rank verified accounts only on the leaderboard'))
    .addBooleanOption((o) => o.setName('feed_verified_only').setDescription('Post the sessions of verified accounts only'))
    .toJSON(),

  async execute(input: CommandInput, deps: Deps): Promise<Reply> {
    if (!input.guildId || !deps.servers) return notice(say(input.locale, 'settings.serverOnly'));
    const asked: ServerSettings = {
      boardMinMatches: integerOption(input, 'min_matches'),
      boardVerifiedOnly: booleanOption(input, 'board_verified_only'),
      feedVerifiedOnly: booleanOption(input, 'feed_verified_only'),
    };
    const changes = Object.fromEntries(Object.entries(asked).filter(([, v]) => v !== undefined)) as ServerSettings;
    const current = await deps.servers.get(input.guildId);
    if (Object.keys(changes).length === 0) return notice([`**${say(input.locale, 'settings.title')}**`, ...settingsLines(current, input.locale)].join('\n'));
    if (!input.canManageServer) return notice(say(input.locale, 'settings.manageOnly'));
    const next = { ...current, ...changes };
    await deps.servers.set(input.guildId, next);
    const verifiedOnly = next.boardVerifiedOnly || next.feedVerifiedOnly;
    return notice(
      [
        `**${say(input.locale, 'settings.saved')}**`,
        ...settingsLines(next, input.locale),
        verifiedOnly && !deps.verification ? say(input.locale, 'settings.noVerification') : null,
      ]
        .filter(Boolean)
        .join('\n'),
    );
  },
} satisfies Command;
