// discord.js' REST client as the bot sets it up, for the gateway mode and the HTTP interactions mode alike.
import { REST, type RateLimitData } from 'discord.js';

import { LONGEST_RATE_LIMIT_WAIT_MS } from './answer-deadline.js';

/**
 * discord.js' REST settings, for the gateway client and for the HTTP interactions' REST client alike.
 * The running bot calls interaction endpoints only (callbacks, edits, follow-ups), which Discord
 * does not bind to the bot's global rate limit; discord.js' client-side one (50 a second) would
 * hold deferred answers back under load. Discord's own 429s are still obeyed.
 * Each deferred answer's edits and follow-ups get a rate-limit queue of their own (keyed by the
 * interaction's token), which discord.js keeps until its hourly sweep: at ten deferrals a second
 * that is tens of thousands of dead queues. A token is good for 15 minutes; sweep every minute.
 * A rate-limit wait longer than LONGEST_RATE_LIMIT_WAIT_MS fails the answer at once (discord.js
 * would sleep through any, then send again); each answer also has an overall deadline
 * (answer-deadline.ts).
 */
export function restOptions(apiUrl: string): {
  api: string;
  globalRequestsPerSecond: number;
  handlerSweepInterval: number;
  rejectOnRateLimit: (limit: RateLimitData) => boolean;
} {
  return { api: apiUrl, globalRequestsPerSecond: 500, handlerSweepInterval: 60_000, rejectOnRateLimit: waitsTooLong };
}

/**
 * Whether a rate limit asks an answer or a post to wait longer than it may. Only answers
 * (interaction and webhook routes) and posts to a channel (a channel in slowmode asks for hours):
 * the client's own calls, such as the gateway's address at login, wait as asked.
 */
export const waitsTooLong = (limit: RateLimitData): boolean =>
  (limit.route.startsWith('/interactions/') || limit.route.startsWith('/webhooks/') || /^\/channels\/[^/]+\/messages$/.test(limit.route)) &&
  Math.max(limit.timeToReset, limit.retryAfter, limit.sublimitTimeout) > LONGEST_RATE_LIMIT_WAIT_MS;

/**
 * The REST client of HTTP interactions mode: interaction webhooks authenticate with the
 * interaction's token, so it needs no bot token; the same settings as the gateway's.
 */
export function createInteractionsRest(apiUrl: string): REST {
  return new REST({ ...restOptions(apiUrl), timeout: 10_000 });
}

/** The gateway mode's REST client: the gateway's address (GET /gateway/bot) and the answers, with the bot's token. */
export function createGatewayRest(apiUrl: string, token: string): REST {
  return new REST(restOptions(apiUrl)).setToken(token);
}
