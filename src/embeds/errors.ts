// What a user reads when a lookup fails, by kind: always ephemeral, never a stack trace, never a secret.
import { PLATFORMS, findEndpoint, isPlatform, type TitleSlug } from '../catalog/index.js';
import type { LookupError } from '../lookup/errors.js';
import { commandLine, say, sayCount } from '../locales/index.js';
import { TYPED_SHOWN, code, namedSlug, platformName, titleName, typedCode, unbroken } from './format.js';
import { clip } from './text.js';
import { notice, safeText, type Reply } from './reply.js';

export interface ErrorContext {
  title: TitleSlug;
  platform?: string | undefined;
  player?: string | undefined;
  /** The reader's locale: the reply is in their language. */
  locale?: string | undefined;
}

export function errorReply(error: LookupError, ctx: ErrorContext): Reply {
  const { locale } = ctx;
  // Clipped as any text a notice quotes back: a name of 200 characters took seven lines of a phone.
  const who = ctx.player ? `**${safeText(clip(ctx.player, TYPED_SHOWN))}**` : say(locale, 'error.thatPlayer');
  // The platform's name held together: a phone broke `PC` from `Store C`.
  const where = ctx.platform ? say(locale, 'error.onPlatform', { platform: unbroken(platformName(ctx.platform)) }) : '';
  const title = titleName(ctx.title);
  // Search is offered only where it can find the player: title_b has none on PC Store C.
  const searchable = !ctx.platform || (findEndpoint(ctx.title, 'search')?.platforms.some((p) => p === ctx.platform) ?? false);
  // A platform that finds players by id, profile URL or vanity name (PC Store A), typed something that is none of them.
  const byVanity =
    ctx.platform !== undefined &&
    isPlatform(ctx.platform) &&
    PLATFORMS[ctx.platform].acceptsVanity &&
    !!ctx.player &&
    !/^\d+$|^https?:/i.test(ctx.player.trim());
  switch (error.kind) {
    case 'not_found':
      return notice(
        error.code === 'MatchNotFound'
          ? say(locale, 'error.matchNotFound', { title, where })
          : searchable
            ? // A name as the game shows it is no vanity name: on such a platform the way is the list, not the spelling.
              say(locale, byVanity ? 'error.notFoundByVanity' : 'error.notFound', {
                title,
                who,
                where,
                platform: unbroken(platformName(ctx.platform ?? '')),
                search: code(commandLine(locale, `/stats ${ctx.title} search`)),
              })
            : say(locale, 'error.notFoundNoSearch', { title, who, where }),
      );
    case 'private':
      return notice(say(locale, 'error.private', { who, title }));
    case 'invalid_parameter': {
      // A player as typed that the service cannot read as one (a pasted link, a slash): what to type
      // instead, in the reader's language, rather than the service's word for it.
      if (error.data.parameter === 'platformUserIdentifier' && ctx.player)
        return notice(
          searchable
            ? say(locale, 'error.badIdentifier', {
                typed: typedCode(ctx.player),
                title,
                where,
                search: code(commandLine(locale, `/stats ${ctx.title} search`)),
              })
            : say(locale, 'error.badIdentifierNoSearch', { typed: typedCode(ctx.player), title, where }),
        );
      // A search's query, or a match id, the service cannot take: likewise, rather than "Invalid query: ...".
      if (error.data.parameter === 'query' && ctx.player) return notice(say(locale, 'error.badQuery', { typed: typedCode(ctx.player), title, where }));
      if (error.data.parameter === 'matchId') {
        const typed = typeof error.data.value === 'string' ? error.data.value : '';
        return notice(
          say(locale, 'error.badMatchId', { typed: typed ? typedCode(typed) : '—', title, matches: code(commandLine(locale, `/stats ${ctx.title} matches`)) }),
        );
      }
      // The service's own message (in its language), then the values it allows, in ours.
      const allowed = Array.isArray(error.data.allowed)
        ? ` ${sayCount(locale, 'error.chooseOneOf', error.data.allowed.length, { list: error.data.allowed.map((a) => (platformName(String(a)) !== String(a) ? namedSlug(platformName(String(a)), String(a)) : code(String(a)))).join(', ') })}`
        : '';
      return notice(`${safeText(error.message)}${allowed}`);
    }
    case 'rate_limited': {
      const seconds = error.retryAfterMs !== undefined ? Math.max(1, Math.ceil(error.retryAfterMs / 1000)) : undefined;
      return notice(`${say(locale, 'error.busy')} ${seconds ? sayCount(locale, 'error.retryIn', seconds) : say(locale, 'error.retrySoon')}`);
    }
    case 'unauthorized':
      return notice(say(locale, 'error.unauthorized'));
    case 'timeout':
      return notice(say(locale, 'error.timeout'));
    case 'unavailable':
      // The embedded service answers this while it loads its data after a start.
      return notice(say(locale, error.code === 'ServiceLoading' ? 'error.loading' : 'error.unavailable'));
    case 'invalid_response':
      return notice(say(locale, 'error.invalidResponse'));
  }
}
