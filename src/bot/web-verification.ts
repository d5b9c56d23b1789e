// Puts verified accounts together from the bot's settings: on when PUBLIC_URL is set.
import { REST, Routes, type RESTGetCurrentApplicationResult } from 'discord.js';
import type { Logger } from 'pino';

import { isTitle } from '../catalog/index.js';
import type { BotConfig } from '../config.js';
import type { LookupClient } from '../lookup/client.js';
import { discordOAuth } from '../verify/discord-oauth.js';
import { tokenBox, tokenKeyOf } from '../verify/token-box.js';
import { connectionPlatforms, createVerification, type WebVerification } from '../verify/verify.js';
import { restOptions } from './client.js';
import type { BotStores } from './stores.js';

/** The web side's verification, or undefined without PUBLIC_URL; throws naming a setting that cannot be used. */
export function webVerification(config: BotConfig, botRest: REST, stores: BotStores, lookup: LookupClient, logger: Logger): WebVerification | undefined {
  if (!config.PUBLIC_URL) return undefined;
  const key = tokenKeyOf(config.TOKEN_ENCRYPTION_KEY ?? '');
  if (!key) throw new Error('TOKEN_ENCRYPTION_KEY must be 32 random bytes as 64 hex digits or base64 (openssl rand -hex 32)');
  if (config.LINKED_ROLES_TITLE !== undefined && !isTitle(config.LINKED_ROLES_TITLE))
    throw new Error(`LINKED_ROLES_TITLE ${config.LINKED_ROLES_TITLE} is not a title (title_a, title_b, title_c, title_d)`);
  const connections = connectionPlatforms(config.VERIFY_CONNECTIONS);
  // The application's id is the OAuth2 client id: read once from Discord when it is not set.
  let applicationId: Promise<string> | undefined = config.DISCORD_APPLICATION_ID ? Promise.resolve(config.DISCORD_APPLICATION_ID) : undefined;
  const clientId = () =>
    (applicationId ??= (botRest.get(Routes.currentApplication()) as Promise<RESTGetCurrentApplicationResult>).then(
      (app) => app.id,
      (e: unknown) => {
        applicationId = undefined;
        throw e;
      },
    ));
  // The member's own calls: no bot token on them (each carries the member's bearer token or the client's secret).
  const oauthRest = new REST({ ...restOptions(config.DISCORD_API_URL), timeout: 10_000 });
  return createVerification({
    publicUrl: config.PUBLIC_URL,
    authorizeUrl: config.DISCORD_OAUTH_AUTHORIZE_URL,
    clientId,
    oauth: discordOAuth(oauthRest, clientId, config.DISCORD_CLIENT_SECRET ?? ''),
    box: tokenBox(key),
    store: stores.verify,
    links: stores.links,
    lookup,
    connections,
    rolesTitle: config.LINKED_ROLES_TITLE,
    logger,
  });
}
