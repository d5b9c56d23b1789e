// The bot's web side: `/verify` takes a member through Discord's OAuth2 consent, links each game
// account their Discord connections prove (verified), and carries their rank to Discord for Linked
// Roles. `GET /verify` starts the flow; `GET /verify/callback` ends it with a page saying what was
// linked and what was not, and why. Nothing is half-linked: links are written only once every
// lookup, the exchange and the grant's keeping are done.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { DiscordAPIError } from 'discord.js';
import type { Logger } from 'pino';

import { findAccount } from '../../commands/link.js';
import type { LinkedAccount, LinkStore, Verification, VerifyStore } from '../../commands/index.js';
import { PLATFORMS, TITLES, TITLE_SLUGS, platformsOfTitle, type PlatformSlug, type TitleSlug } from '../catalog/index.js';
import { overviewOf, type Stats } from '../lookup/schemas.js';
import type { LookupClient } from '../lookup/client.js';
import { say, type TextKey } from '../locales/index.js';
import type { DiscordOAuth, Grant, Connection } from './discord-oauth.js';
import { EMPTY_ROLE_CONNECTION, roleConnectionOf } from './linked-roles.js';
import { verifyPageHtml, type PageSection, type VerifyPage } from './page.js';
import type { TokenBox } from './token-box.js';

/** The scopes asked for: who the member is, their connections, and their role connection. */
export const VERIFY_SCOPES = 'identify connections role_connections.write';
const COOKIE = 'verify_browser';
/** The lookups that check the proven accounts get this long together. */
const CHECK_DEADLINE_MS = 8_000;
/** A member's role connection is pushed at most this often when their stats change. */
export const ROLE_PUSH_INTERVAL_MS = 10 * 60_000;
/** Pushes under way at once at most (each a member's): a board of many verified members does not flood Discord. */
const MAX_PUSHES_IN_FLIGHT = 8;

/** How Discord names a connection type to a member. */
const CONNECTION_NAMES: Record<string, string> = {
  steam: 'Steam',
  xbox: 'Xbox',
  playstation: 'PlayStation',
  battlenet: 'Battle.net',
  epicgames: 'Epic Games',
  riotgames: 'Riot Games',
};
const connectionName = (type: string) => CONNECTION_NAMES[type] ?? type;

export interface VerifyOptions {
  /** PUBLIC_URL without a trailing slash. */
  publicUrl: string;
  authorizeUrl: string;
  clientId: () => Promise<string>;
  oauth: DiscordOAuth;
  box: TokenBox;
  store: VerifyStore;
  links: LinkStore;
  lookup: LookupClient;
  /** Connection type -> platform (VERIFY_CONNECTIONS read the other way round). */
  connections: Readonly<Record<string, PlatformSlug>>;
  /** The title whose rank members carry to Discord (LINKED_ROLES_TITLE). */
  rolesTitle?: TitleSlug | undefined;
  logger: Logger;
  now?: () => number;
}

export interface WebVerification extends Verification {
  /** Answers a request under `/verify`; false for any other path (the caller answers it). */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

const hash = (text: string) => createHash('sha256').update(text).digest();

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The reader's language from the browser, before Discord says it: `de-DE,de;q=0.9` reads `de-DE`. */
const browserLocale = (req: IncomingMessage) => /^\s*([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})?)/.exec(req.headers['accept-language'] ?? '')?.[1];

function sendPage(res: ServerResponse, status: number, page: VerifyPage, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      ...headers,
    })
    .end(verifyPageHtml(page));
}

/** One account a connection proves, checked against the service for one title. */
interface Proven {
  title: TitleSlug;
  account: LinkedAccount;
  replaces?: LinkedAccount | undefined;
}

export function createVerification(o: VerifyOptions): WebVerification {
  const now = o.now ?? Date.now;
  const redirectUri = `${o.publicUrl}/verify/callback`;
  const secure = o.publicUrl.startsWith('https:');
  const cookie = (value: string, maxAge: number) => `${COOKIE}=${value}; Path=/verify; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
  const again = `${o.publicUrl}/verify`;
  const pushing = new Set<string>();

  async function start(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const state = randomBytes(24).toString('base64url');
    const browser = randomBytes(24).toString('base64url');
    try {
      await o.store.putState(state, { browser: hash(browser).toString('base64url') });
    } catch (e) {
      o.logger.warn({ err: (e as Error).message }, 'verification could not start: the store did not keep its state');
      return sendPage(res, 503, { locale: browserLocale(req), ok: false, lead: say(browserLocale(req), 'verify.storeDown'), again });
    }
    const url = new URL(o.authorizeUrl);
    url.search = new URLSearchParams({
      client_id: await o.clientId(),
      response_type: 'code',
      scope: VERIFY_SCOPES,
      state,
      redirect_uri: redirectUri,
      prompt: 'consent',
    }).toString();
    res.writeHead(302, { location: url.toString(), 'set-cookie': cookie(browser, 600), 'cache-control': 'no-store' }).end();
  }

  /** The accounts the member's verified connections prove, per title, and why the others were not linked. */
  async function proven(userId: string, connections: Connection[], locale: string | undefined): Promise<{ found: Proven[]; notLinked: string[] }> {
    const usable = connections.filter((c) => o.connections[c.type] !== undefined && c.revoked !== true);
    const notLinked = usable
      .filter((c) => c.verified !== true)
      .map((c) => say(locale, 'verify.notVerified', { connection: connectionName(c.type), name: c.name }));
    const verified = usable.filter((c) => c.verified === true);
    const candidates = TITLE_SLUGS.flatMap((title) =>
      verified
        .filter((c) => platformsOfTitle(title).includes(o.connections[c.type]!))
        // Steam is known by its id; the others by the name (a Battle.net name with its `#` part).
        .map((c) => ({ title, connection: c, platform: o.connections[c.type]!, player: c.type === 'steam' ? c.id : c.name })),
    );
    const checked = await Promise.all(
      candidates.map(async (c) => {
        const r = await findAccount(c.title, c.platform, c.player, { lookup: o.lookup }).catch(() => undefined);
        // Anything but the service's "not found" (a timeout, the service down, a throw) proves nothing.
        return { ...c, account: r && 'account' in r ? r.account : undefined, unanswered: !r || ('error' in r && r.error.kind !== 'not_found') };
      }),
    );
    const found: Proven[] = [];
    for (const title of TITLE_SLUGS) {
      const here = checked.filter((c) => c.title === title && c.account);
      if (here.length === 0) continue;
      const before = await o.links.get(userId, title).catch(() => undefined);
      // The account linked already, when a connection proves it; else the first proven.
      const pick =
        here.find((c) => before && c.platform === before.platform && c.account!.identifier.toLowerCase() === before.identifier.toLowerCase()) ?? here[0]!;
      const account = { platform: pick.platform, identifier: pick.account!.identifier, handle: pick.account!.handle, verified: true };
      const replaces =
        before && (before.platform !== account.platform || before.identifier.toLowerCase() !== account.identifier.toLowerCase()) ? before : undefined;
      found.push({ title, account, replaces });
    }
    for (const c of verified) {
      if (checked.some((k) => k.connection === c && k.account)) continue;
      // "No such player" only where the service said so for every title: a lookup that failed (a
      // timeout, the service down) proves nothing either way, and the member is told to try again.
      const key = checked.some((k) => k.connection === c && k.unanswered) ? 'verify.notChecked' : 'verify.noPlayer';
      notLinked.push(say(locale, key, { connection: connectionName(c.type), name: c.name, platform: PLATFORMS[o.connections[c.type]!].name }));
    }
    return { found, notLinked };
  }

  const grantOf = (sealed: string) => JSON.parse(o.box.open(sealed)) as Grant;

  /** A usable access token from a stored grant: refreshed (and kept) when it has expired, or `refresh` says so. */
  async function accessOf(userId: string, sealed: string, refresh = false): Promise<string> {
    const grant = grantOf(sealed);
    if (!refresh && grant.expiresAt - now() > 60_000) return grant.accessToken;
    const fresh = await o.oauth.refresh(grant.refreshToken);
    const stored = await o.store.grant(userId);
    await o.store.setGrant(userId, { ...stored, sealed: o.box.seal(JSON.stringify(fresh)) });
    return fresh.accessToken;
  }

  /** Calls Discord with the member's access token; one Discord no longer takes (401) is refreshed once and the call made again. */
  async function withAccess(userId: string, sealed: string, call: (accessToken: string) => Promise<void>): Promise<void> {
    try {
      await call(await accessOf(userId, sealed));
    } catch (e) {
      if (!(e instanceof DiscordAPIError) || e.status !== 401) throw e;
      await call(await accessOf(userId, ((await o.store.grant(userId)) ?? { sealed }).sealed, true));
    }
  }

  /** Pushes the member's role connection for the roles title when it changed; whether Discord took it. */
  async function push(userId: string, account: LinkedAccount, stats: Stats, force = false): Promise<boolean> {
    if (!o.rolesTitle) return false;
    const stored = await o.store.grant(userId);
    if (!stored) return false;
    const connection = roleConnectionOf(o.rolesTitle, stats, account);
    const same = JSON.stringify(stored.pushed) === JSON.stringify(connection.metadata);
    if (!force && (same || now() - (stored.pushedAt ?? 0) < ROLE_PUSH_INTERVAL_MS)) return false;
    await withAccess(userId, stored.sealed, (access) => o.oauth.putRoleConnection(access, connection));
    const latest = (await o.store.grant(userId)) ?? stored;
    await o.store.setGrant(userId, { ...latest, pushed: connection.metadata, pushedAt: now() });
    return true;
  }

  async function rolesAfterVerifying(userId: string, found: Proven[]): Promise<boolean | undefined> {
    const mine = o.rolesTitle && found.find((p) => p.title === o.rolesTitle);
    if (!o.rolesTitle || !mine) return undefined;
    const r = await o.lookup.profile(o.rolesTitle, mine.account.platform, mine.account.identifier, { deadlineMs: CHECK_DEADLINE_MS });
    const stats = r.data ? (overviewOf(r.data.segments)?.stats ?? {}) : {};
    try {
      return await push(userId, mine.account, stats, true);
    } catch (e) {
      o.logger.warn({ err: (e as Error).message, user: userId }, 'verification: Discord did not take the role connection');
      return false;
    }
  }

  async function callback(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    let locale = browserLocale(req);
    const fail = (status: number, key: TextKey, headers: Record<string, string> = {}) =>
      sendPage(res, status, { locale, ok: false, lead: say(locale, key), again }, headers);
    const state = query.get('state') ?? '';
    let record;
    try {
      record = state ? await o.store.takeState(state) : undefined;
    } catch (e) {
      o.logger.warn({ err: (e as Error).message }, 'verification: the store did not answer for its state');
      return fail(503, 'verify.storeDown');
    }
    if (!record) return fail(400, 'verify.expired');
    const browser = cookieOf(req, COOKIE);
    const clear = { 'set-cookie': cookie('', 0) };
    const expected = Buffer.from(record.browser, 'base64url');
    if (!browser || !timingSafeEqual(hash(browser), expected.length === 32 ? expected : Buffer.alloc(32))) return fail(403, 'verify.otherBrowser', clear);
    if (query.has('error')) return fail(400, 'verify.denied', clear);
    const code = query.get('code');
    if (!code) return fail(400, 'verify.codeRefused', clear);
    let grant: Grant;
    try {
      grant = await o.oauth.exchangeCode(code, redirectUri);
    } catch (e) {
      const refused = e instanceof DiscordAPIError && e.status >= 400 && e.status < 500;
      o.logger.warn({ err: (e as Error).message }, refused ? 'verification: Discord refused the code' : 'verification: the code exchange failed');
      return fail(refused ? 400 : 502, refused ? 'verify.codeRefused' : 'verify.discordDown', clear);
    }
    let user;
    let connections;
    try {
      [user, connections] = await Promise.all([o.oauth.me(grant.accessToken), o.oauth.connections(grant.accessToken)]);
    } catch (e) {
      o.logger.warn({ err: (e as Error).message }, 'verification: Discord did not say who the member is or what they connected');
      await o.oauth.revoke(grant.refreshToken).catch(() => undefined);
      return fail(502, 'verify.discordDown', clear);
    }
    locale = user.locale ?? locale;
    const { found, notLinked } = await proven(user.id, connections, locale);
    if (found.length === 0) {
      await o.oauth.revoke(grant.refreshToken).catch(() => undefined);
      const list = Object.keys(o.connections).map(connectionName).join(', ');
      const lead = notLinked.length > 0 ? say(locale, 'verify.nothingLead') : say(locale, 'verify.noConnections', { list });
      return sendPage(res, 200, { locale, ok: false, lead, sections: [{ heading: 'verify.notLinked', lines: notLinked }], again }, clear);
    }
    // The grant first, then the links: a store that fails before the links leaves the member as they were.
    const written: Proven[] = [];
    try {
      const before = await o.store.grant(user.id);
      await o.store.setGrant(user.id, { ...before, sealed: o.box.seal(JSON.stringify(grant)) });
      for (const p of found) {
        await o.links.set(user.id, p.title, p.account);
        written.push(p);
      }
    } catch (e) {
      // Links written so far go back to what they were.
      for (const p of written) await (p.replaces ? o.links.set(user.id, p.title, p.replaces) : o.links.delete(user.id, p.title)).catch(() => undefined);
      o.logger.warn({ err: (e as Error).message, user: user.id }, 'verification: the links could not be kept');
      return fail(503, 'verify.storeDown', clear);
    }
    const roles = await rolesAfterVerifying(user.id, found);
    o.logger.info({ user: user.id, linked: found.map((p) => `${p.title}:${p.account.platform}`), roles }, 'verification: accounts linked');
    const sections: PageSection[] = [
      {
        heading: 'verify.linked',
        lines: found.map((p) => {
          const vars = { title: TITLES[p.title].name, handle: p.account.handle, platform: PLATFORMS[p.account.platform].name };
          return p.replaces && !p.replaces.verified
            ? say(locale, 'verify.replacedLine', { ...vars, old: p.replaces.handle })
            : say(locale, 'verify.linkedLine', vars);
        }),
      },
      { heading: 'verify.notLinked', lines: notLinked },
      ...(roles === undefined
        ? []
        : [
            {
              heading: 'verify.roles' as const,
              lines: [say(locale, roles ? 'verify.rolesDone' : 'verify.rolesFailed', { title: TITLES[o.rolesTitle!].name })],
            },
          ]),
    ];
    sendPage(res, 200, { locale, ok: true, lead: say(locale, 'verify.linkedLead'), sections }, clear);
  }

  return {
    url: again,
    async handle(req, res) {
      const target = new URL(req.url ?? '/', 'http://web');
      if (target.pathname !== '/verify' && target.pathname !== '/verify/callback') return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET' }).end();
        return true;
      }
      try {
        await (target.pathname === '/verify' ? start(req, res) : callback(req, res, target.searchParams));
      } catch (e) {
        o.logger.error({ err: (e as Error).message }, 'verification failed');
        if (!res.headersSent) sendPage(res, 500, { locale: browserLocale(req), ok: false, lead: say(browserLocale(req), 'verify.failed'), again });
      }
      return true;
    },
    async forget(userId) {
      const links = await Promise.all(TITLE_SLUGS.map(async (t) => ({ title: t, link: await o.links.get(userId, t) })));
      const stored = await o.store.grant(userId);
      if (!stored) return;
      const keep = links.some((l) => l.link?.verified);
      const rolesGone = o.rolesTitle !== undefined && !links.some((l) => l.title === o.rolesTitle && l.link?.verified);
      // The grant as it stands now: a refresh on the way keeps a new one.
      const current = async () => ((await o.store.grant(userId)) ?? stored).sealed;
      try {
        if (rolesGone && stored.pushed) {
          await withAccess(userId, stored.sealed, (access) => o.oauth.putRoleConnection(access, EMPTY_ROLE_CONNECTION));
          // Nothing pushed any more: the next verification pushes anew.
          if (keep) await o.store.setGrant(userId, { sealed: await current() });
        }
        if (!keep) await o.oauth.revoke(grantOf(await current()).refreshToken);
      } catch (e) {
        o.logger.warn({ err: (e as Error).message, user: userId }, 'unlink: Discord did not take the role connection cleared or the grant revoked');
      }
      // Forgotten here whatever Discord said: a grant the member unlinked is not kept.
      if (!keep) await o.store.deleteGrant(userId);
    },
    seen(userId, title, stats) {
      if (title !== o.rolesTitle || pushing.has(userId) || pushing.size >= MAX_PUSHES_IN_FLIGHT) return;
      pushing.add(userId);
      void (async () => {
        const account = await o.links.get(userId, title);
        if (account?.verified) await push(userId, account, stats);
      })()
        .catch((e: unknown) => o.logger.warn({ err: (e as Error).message, user: userId }, 'Linked Roles: the role connection was not updated'))
        .finally(() => pushing.delete(userId));
    },
  };
}

/** VERIFY_CONNECTIONS (`platform=connection type`) read as connection type -> platform; throws naming a platform that is not one. */
export function connectionPlatforms(pairs: Readonly<Record<string, string>>): Record<string, PlatformSlug> {
  const out: Record<string, PlatformSlug> = {};
  for (const [platform, type] of Object.entries(pairs)) {
    if (!Object.hasOwn(PLATFORMS, platform))
      throw new Error(`VERIFY_CONNECTIONS names ${platform}, which is not a platform (${Object.keys(PLATFORMS).join(', ')})`);
    out[type] = platform as PlatformSlug;
  }
  return out;
}
