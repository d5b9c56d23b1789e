// What the bot asks Discord on a member's behalf, with their OAuth2 grant: the code and refresh
// exchanges, who they are, the game accounts they connected, and their role connection (Linked
// Roles). Through discord.js's REST client, as every other call to Discord: its rate limits and
// errors (DiscordAPIError, with OAuth2's `error` as the message) come with it.
import { Routes, type REST } from 'discord.js';
import { z } from 'zod';

/** What Discord's token endpoint answers (an authorization code or a refresh token exchanged). */
const TokenSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.number(),
  scope: z.string(),
});
const UserSchema = z.object({ id: z.string(), username: z.string(), global_name: z.string().nullish(), locale: z.string().optional() });
const ConnectionSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  verified: z.boolean().optional(),
  revoked: z.boolean().optional(),
});

/** A member's grant: what the bot may do for them, and until when the access token holds. */
export interface Grant {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms. */
  expiresAt: number;
  scope: string;
}
export type DiscordUser = z.infer<typeof UserSchema>;
export type Connection = z.infer<typeof ConnectionSchema>;

/** The role connection a member carries to Discord: metadata values are strings (integers, `1`/`0` for booleans). */
export interface RoleConnection {
  platform_name: string | null;
  platform_username: string | null;
  metadata: Record<string, string>;
}

export interface DiscordOAuth {
  exchangeCode(code: string, redirectUri: string): Promise<Grant>;
  refresh(refreshToken: string): Promise<Grant>;
  revoke(token: string): Promise<void>;
  me(accessToken: string): Promise<DiscordUser>;
  connections(accessToken: string): Promise<Connection[]>;
  putRoleConnection(accessToken: string, connection: RoleConnection): Promise<void>;
}

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** `rest` points at DISCORD_API_URL; the client's id and secret authenticate the token calls. */
export function discordOAuth(rest: REST, clientId: () => Promise<string>, clientSecret: string, now: () => number = Date.now): DiscordOAuth {
  const tokenCall = async (fields: Record<string, string>): Promise<Grant> => {
    const body = new URLSearchParams({ client_id: await clientId(), client_secret: clientSecret, ...fields }).toString();
    const t = TokenSchema.parse(await rest.post(Routes.oauth2TokenExchange(), { auth: false, passThroughBody: true, body, headers: FORM }));
    return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: now() + t.expires_in * 1000, scope: t.scope };
  };
  const bearer = (accessToken: string) => ({ auth: false, headers: { Authorization: `Bearer ${accessToken}` } });
  return {
    exchangeCode: (code, redirectUri) => tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
    refresh: (refreshToken) => tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    async revoke(token) {
      const body = new URLSearchParams({ client_id: await clientId(), client_secret: clientSecret, token, token_type_hint: 'refresh_token' }).toString();
      await rest.post(Routes.oauth2TokenRevocation(), { auth: false, passThroughBody: true, body, headers: FORM });
    },
    me: async (accessToken) => UserSchema.parse(await rest.get(Routes.user(), bearer(accessToken))),
    connections: async (accessToken) => z.array(ConnectionSchema).parse(await rest.get(Routes.userConnections(), bearer(accessToken))),
    async putRoleConnection(accessToken, connection) {
      await rest.put(Routes.userApplicationRoleConnection(await clientId()), { ...bearer(accessToken), body: connection });
    },
  };
}
