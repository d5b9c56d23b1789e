// Discord's OAuth2 and Linked Roles, as the double answers them: the authorize page a member
// consents on, the token endpoint (authorization codes, refresh tokens, revocation), the member's
// own `@me` and connections with their bearer token, their role connection, and the application's
// role connection metadata. Shapes and refusals as Discord's docs give them.
import { randomBytes } from 'node:crypto';

import { APPLICATION_ID, DEFAULT_USER } from './ids.js';

export interface DoubleConnection {
  id: string;
  name: string;
  type: string;
  verified: boolean;
  revoked?: boolean;
}

export interface DoubleMember {
  id: string;
  username: string;
  locale?: string;
  connections: DoubleConnection[];
}

export interface RoleConnectionRecord {
  type: number;
  key: string;
  name: string;
  description: string;
}

export interface RoleConnection {
  platform_name: string | null;
  platform_username: string | null;
  metadata: Record<string, string>;
}

/** What a test reads and steers of the double's OAuth2. */
export interface OAuthDouble {
  /** The application's client secret: the bot's DISCORD_CLIENT_SECRET. */
  clientSecret: string;
  /** The authorize page: the bot's DISCORD_OAUTH_AUTHORIZE_URL. */
  authorizeUrl: string;
  /** A Discord account the browser can sign in as (`signIn`), with its connections. */
  addMember(member: DoubleMember): void;
  /** The member the browser is signed in as on the authorize page (DEFAULT_USER unless told). */
  signIn(userId: string): void;
  /** What the authorize page answers: `allow` consents, `deny` cancels (`error=access_denied`). */
  decide(decision: 'allow' | 'deny'): void;
  /** The role connection a member carries, as the bot last put it. */
  roleConnection(userId: string): RoleConnection | undefined;
  /** The application's role connection metadata, as registered. */
  metadata(): RoleConnectionRecord[];
  /** Codes handed out expire at once (a member who took too long). */
  expireCodes(): void;
  /** Every access token handed out expires at once (the bot must refresh). */
  expireAccessTokens(): void;
  /** Refresh tokens revoked so far. */
  revoked(): string[];
  /** Token exchanges so far by grant type. */
  exchanges(): { authorization_code: number; refresh_token: number };
}

interface Answer {
  status: number;
  body?: unknown;
  html?: string;
  headers?: Record<string, string>;
}

interface Call {
  method: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  body: unknown;
}

const SCOPES_NEEDED = ['identify', 'connections', 'role_connections.write'];
const METADATA_TYPES = new Set([1, 2, 3, 4, 5, 6, 7, 8]);
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const oauthError = (error: string, description: string): Answer => ({ status: 400, body: { error, error_description: description } });
const unauthorized: Answer = { status: 401, body: { message: '401: Unauthorized', code: 0 } };
const token = () => randomBytes(18).toString('base64url');

export function createOAuthDouble(baseUrl: () => string): OAuthDouble & {
  page(call: Call, path: string): Answer;
  rest(call: Call, segments: string[]): Answer | undefined;
  metadataRoute(call: Call): Answer;
} {
  const clientSecret = `double-secret-${randomBytes(12).toString('hex')}`;
  const members = new Map<string, DoubleMember>([[DEFAULT_USER.id, { ...DEFAULT_USER, connections: [] }]]);
  let signedIn = DEFAULT_USER.id;
  let decision: 'allow' | 'deny' = 'allow';
  const codes = new Map<string, { userId: string; redirectUri: string; scopes: string[]; expiresAt: number }>();
  const access = new Map<string, { userId: string; scopes: string[]; expiresAt: number; refresh: string }>();
  const refresh = new Map<string, { userId: string; scopes: string[] }>();
  const roleConnections = new Map<string, RoleConnection>();
  let records: RoleConnectionRecord[] = [];
  const revokedTokens: string[] = [];
  const exchangeCounts = { authorization_code: 0, refresh_token: 0 };

  const form = (body: unknown) => new URLSearchParams(typeof body === 'string' ? body : '');
  /** The client authenticates with its id and secret in the form, or with HTTP Basic. */
  const clientOk = (call: Call, f: URLSearchParams) => {
    const basic = /^Basic (.+)$/.exec(call.headers.authorization ?? '')?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString().split(':') : [f.get('client_id'), f.get('client_secret')];
    return id === APPLICATION_ID && secret === clientSecret;
  };
  const issue = (userId: string, scopes: string[]) => {
    const pair = { access: token(), refresh: token() };
    access.set(pair.access, { userId, scopes, expiresAt: Date.now() + 604_800_000, refresh: pair.refresh });
    refresh.set(pair.refresh, { userId, scopes });
    return {
      status: 200,
      body: { access_token: pair.access, token_type: 'Bearer', expires_in: 604_800, refresh_token: pair.refresh, scope: scopes.join(' ') },
    };
  };
  const bearer = (call: Call, scope: string) => {
    const t = /^Bearer (.+)$/.exec(call.headers.authorization ?? '')?.[1];
    const grant = t ? access.get(t) : undefined;
    if (!grant || grant.expiresAt <= Date.now()) return undefined;
    return grant.scopes.includes(scope) ? grant : null;
  };

  return {
    clientSecret,
    get authorizeUrl() {
      return `${baseUrl()}/oauth2/authorize`;
    },
    addMember: (member) => void members.set(member.id, member),
    signIn: (userId) => void (signedIn = userId),
    decide: (d) => void (decision = d),
    roleConnection: (userId) => roleConnections.get(userId),
    metadata: () => records,
    expireCodes: () => {
      for (const c of codes.values()) c.expiresAt = 0;
    },
    expireAccessTokens: () => {
      for (const a of access.values()) a.expiresAt = 0;
    },
    revoked: () => [...revokedTokens],
    exchanges: () => ({ ...exchangeCounts }),

    /** `GET /oauth2/authorize`: the consent page; `GET /oauth2/authorize/decide`: where its button leads. */
    page(call, path) {
      const q = call.query;
      const problem =
        q.client_id !== APPLICATION_ID
          ? 'Unknown application'
          : q.response_type !== 'code'
            ? 'Invalid response_type'
            : !q.redirect_uri || !URL.canParse(q.redirect_uri)
              ? 'Invalid redirect_uri'
              : SCOPES_NEEDED.some((s) => !(q.scope ?? '').split(' ').includes(s))
                ? 'Invalid scope'
                : undefined;
      if (problem) return { status: 400, html: `<!doctype html><title>Discord</title><p>${escape(problem)}</p>` };
      const back = new URL(q.redirect_uri!);
      if (path === '/oauth2/authorize/decide') {
        if (q.allow !== '1') {
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('error_description', 'The resource owner or authorization server denied the request');
        } else {
          const code = token();
          codes.set(code, { userId: signedIn, redirectUri: q.redirect_uri!, scopes: (q.scope ?? '').split(' '), expiresAt: Date.now() + 600_000 });
          back.searchParams.set('code', code);
        }
        if (q.state !== undefined) back.searchParams.set('state', q.state);
        return { status: 302, headers: { location: back.toString() } };
      }
      const decide = new URL(`${baseUrl()}/oauth2/authorize/decide`);
      for (const [k, v] of Object.entries(q)) decide.searchParams.set(k, v);
      decide.searchParams.set('allow', decision === 'allow' ? '1' : '0');
      const member = members.get(signedIn);
      // The button is followed at once (a refresh): the test has decided for the member.
      return {
        status: 200,
        html: `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escape(decide.toString())}"><title>Discord</title></head>
<body><p>${escape(member?.username ?? '')}: an application wants to access your account (${escape(q.scope ?? '')}).</p>
<a id="authorize" href="${escape(decide.toString())}">${decision === 'allow' ? 'Authorize' : 'Cancel'}</a></body></html>`,
      };
    },

    /** `/oauth2/token`, `/oauth2/token/revoke`, and the member's own routes under `/users/@me`; undefined for a route not theirs. */
    rest(call, segments) {
      const [head, a, b, c, d] = segments;
      if (head === 'oauth2' && a === 'token' && b === undefined) {
        if (call.method !== 'POST') return { status: 405, body: { message: '405: Method Not Allowed', code: 0 } };
        const f = form(call.body);
        if (!clientOk(call, f)) return { status: 401, body: { error: 'invalid_client' } };
        const grantType = f.get('grant_type');
        if (grantType === 'authorization_code') {
          const code = codes.get(f.get('code') ?? '');
          codes.delete(f.get('code') ?? '');
          if (!code || code.expiresAt <= Date.now()) return oauthError('invalid_grant', 'Invalid "code" in request.');
          if (code.redirectUri !== f.get('redirect_uri')) return oauthError('invalid_grant', 'Invalid "redirect_uri" in request.');
          exchangeCounts.authorization_code++;
          return issue(code.userId, code.scopes);
        }
        if (grantType === 'refresh_token') {
          const was = refresh.get(f.get('refresh_token') ?? '');
          if (!was) return oauthError('invalid_grant', 'Invalid "refresh_token" in request.');
          refresh.delete(f.get('refresh_token')!);
          exchangeCounts.refresh_token++;
          return issue(was.userId, was.scopes);
        }
        return oauthError('unsupported_grant_type', 'Unsupported grant type');
      }
      if (head === 'oauth2' && a === 'token' && b === 'revoke' && c === undefined) {
        if (call.method !== 'POST') return { status: 405, body: { message: '405: Method Not Allowed', code: 0 } };
        const f = form(call.body);
        if (!clientOk(call, f)) return { status: 401, body: { error: 'invalid_client' } };
        const t = f.get('token') ?? '';
        revokedTokens.push(t);
        refresh.delete(t);
        for (const [k, v] of access) if (v.refresh === t || k === t) access.delete(k);
        return { status: 200, body: {} };
      }
      if (head !== 'users' || a !== '@me' || !(call.headers.authorization ?? '').startsWith('Bearer ')) return undefined;
      if (b === undefined) {
        const grant = bearer(call, 'identify');
        if (!grant) return unauthorized;
        const m = members.get(grant.userId)!;
        return { status: 200, body: { id: m.id, username: m.username, global_name: null, avatar: null, discriminator: '0', locale: m.locale ?? 'en-US' } };
      }
      if (b === 'connections' && c === undefined) {
        const grant = bearer(call, 'connections');
        if (!grant) return unauthorized;
        return {
          status: 200,
          body: members.get(grant.userId)!.connections.map((x) => ({ ...x, friend_sync: false, show_activity: true, two_way_link: false, visibility: 1 })),
        };
      }
      if (b === 'applications' && c === APPLICATION_ID && d === 'role-connection') {
        const grant = bearer(call, 'role_connections.write');
        if (!grant) return unauthorized;
        if (call.method === 'GET')
          return { status: 200, body: roleConnections.get(grant.userId) ?? { platform_name: null, platform_username: null, metadata: {} } };
        if (call.method !== 'PUT') return { status: 405, body: { message: '405: Method Not Allowed', code: 0 } };
        const body = (call.body ?? {}) as Partial<RoleConnection>;
        const metadata = body.metadata ?? {};
        const known = new Set(records.map((r) => r.key));
        const bad =
          (body.platform_name?.length ?? 0) > 50 ||
          (body.platform_username?.length ?? 0) > 100 ||
          Object.entries(metadata).some(([k, v]) => !known.has(k) || typeof v !== 'string' || v.length > 100);
        if (bad) return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
        const stored = { platform_name: body.platform_name ?? null, platform_username: body.platform_username ?? null, metadata };
        roleConnections.set(grant.userId, stored);
        return { status: 200, body: stored };
      }
      return { status: 404, body: { message: '404: Not Found', code: 0 } };
    },

    /** `PUT|GET /applications/{app}/role-connections/metadata` (with the bot token): at most five records. */
    metadataRoute(call) {
      if (call.method === 'GET') return { status: 200, body: records };
      if (call.method !== 'PUT') return { status: 405, body: { message: '405: Method Not Allowed', code: 0 } };
      const list = Array.isArray(call.body) ? (call.body as RoleConnectionRecord[]) : [];
      const bad =
        !Array.isArray(call.body) ||
        list.length > 5 ||
        list.some(
          (r) =>
            !METADATA_TYPES.has(r.type) ||
            !/^[a-z0-9_]{1,50}$/.test(r.key) ||
            typeof r.name !== 'string' ||
            r.name.length < 1 ||
            r.name.length > 100 ||
            typeof r.description !== 'string' ||
            r.description.length < 1 ||
            r.description.length > 200,
        ) ||
        new Set(list.map((r) => r.key)).size !== list.length;
      if (bad) return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
      records = list;
      return { status: 200, body: records };
    },
  };
}
