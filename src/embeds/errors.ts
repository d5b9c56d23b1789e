// What a user reads when a lookup fails, by kind: always ephemeral, never a stack trace, never a secret.
import type { TitleSlug } from '../catalog/index.js';
import type { LookupError } from '../lookup/errors.js';
import { code, platformName, titleName } from './format.js';
import { notice, safeText, type Reply } from './reply.js';

export interface ErrorContext {
  title: TitleSlug;
  platform?: string | undefined;
  player?: string | undefined;
}

export function errorReply(error: LookupError, ctx: ErrorContext): Reply {
  const who = ctx.player ? `**${safeText(ctx.player)}**` : 'that player';
  const where = ctx.platform ? ` on ${platformName(ctx.platform)}` : '';
  switch (error.kind) {
    case 'not_found':
      return notice(
        error.code === 'MatchNotFound'
          ? `That ${titleName(ctx.title)} match was not found${where}.`
          : `No ${titleName(ctx.title)} player ${who}${where}. Check the spelling, or find them with ${code(`/stats ${ctx.title} search`)}.`,
      );
    case 'private':
      return notice(`${who} keeps their ${titleName(ctx.title)} stats private. Only they can change that, in the game's privacy settings.`);
    case 'invalid_parameter': {
      const allowed = Array.isArray(error.data.allowed)
        ? ` Choose one of: ${error.data.allowed.map((a) => (platformName(String(a)) !== String(a) ? `${platformName(String(a))} (${code(String(a))})` : code(String(a)))).join(', ')}.`
        : '';
      return notice(`${safeText(error.message)}${allowed}`);
    }
    case 'rate_limited': {
      const seconds = error.retryAfterMs !== undefined ? Math.max(1, Math.ceil(error.retryAfterMs / 1000)) : undefined;
      return notice(`The stats service is busy right now.${seconds ? ` Try again in ${seconds} second${seconds === 1 ? '' : 's'}.` : ' Try again in a moment.'}`);
    }
    case 'unauthorized':
      return notice('The stats service refused this bot’s access. The server owner should check the bot’s API key.');
    case 'timeout':
      return notice('The stats service did not answer in time. Try again in a moment.');
    case 'unavailable':
      return notice('The stats service is down right now, and there is no recent copy of this data. Try again later.');
    case 'invalid_response':
      return notice('The stats service sent an answer the bot could not read. Try again later.');
  }
}
