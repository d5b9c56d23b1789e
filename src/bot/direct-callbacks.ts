// Interaction callbacks (POST /interactions/{id}/{token}/callback: the reply, the update, the
// autocomplete choices) sent straight over a keep-alive undici pool instead of through discord.js'
// REST queue. Every answer is one of these, and the queue was a quarter of the bot's CPU under load:
// a rate-limit handler looked up or made per interaction id, headers and URL built anew, and a card
// travelling as FormData -> Blob -> web stream -> ArrayBuffer before a byte was sent. Callbacks carry
// the interaction's token in the path, need no Authorization and are outside the bot's global rate
// limit, so there is no queue to keep. What Discord answers is read the way discord.js reads it. A
// 429, a 5xx or a connection failure goes to discord.js' own path, which waits and retries.
import { randomBytes } from 'node:crypto';

import { DefaultUserAgent, DiscordAPIError, InteractionResponseType, Routes, type REST, type RawFile } from 'discord.js';
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { WarningThrottle } from '../lookup/warning-throttle.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

/** A form field's quoted value: no quote or line break can end the header early. */
const quoted = (value: string) => `"${value.replace(/["\r\n]/g, (c) => encodeURIComponent(c))}"`;

function fileBytes(file: RawFile): Buffer {
  return Buffer.isBuffer(file.data) ? file.data : file.data instanceof Uint8Array ? Buffer.from(file.data) : Buffer.from(String(file.data));
}

/** Random once per process, then counted: a boundary never seen in a body, without entropy per call. */
const BOUNDARY_PREFIX = `----player-stats-bot-${randomBytes(12).toString('hex')}-`;
let boundaries = 0;

/** The body Discord takes with files: `payload_json` and `files[n]`, as discord.js sends it. */
export function multipart(json: unknown, files: readonly RawFile[]): { body: Buffer; contentType: string } {
  const boundary = `${BOUNDARY_PREFIX}${(boundaries = (boundaries + 1) % Number.MAX_SAFE_INTEGER)}`;
  const parts: Buffer[] = [];
  files.forEach((file, i) => {
    const data = fileBytes(file);
    const type = file.contentType ?? (data.subarray(0, 4).equals(PNG) ? 'image/png' : 'application/octet-stream');
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(file.key ?? `files[${i}]`)}; filename=${quoted(file.name)}\r\nContent-Type: ${type}\r\n\r\n`), data, Buffer.from('\r\n'));
  });
  if (json !== undefined) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(json)}\r\n`));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Sends interaction callbacks: the first answer of a gateway interaction. */
export interface CallbackSender {
  /** Posts `body` (and `files`, as multipart) to the interaction's callback route; rejects with Discord's error. */
  send(interactionId: string, token: string, body: unknown, files?: readonly RawFile[]): Promise<unknown>;
  /** Closes the connection pool. */
  close(): Promise<void>;
}

/** Discord answers a callback with nothing (204) or a small JSON message: more than this is cut off as an error. */
const MAX_ANSWER_BYTES = 1024 * 1024;

interface Posted {
  status: number;
  type: string;
  body: Buffer;
}

/**
 * One POST on the pool, read into a buffer: undici's handler interface, without the stream, the
 * promise chain and the body mixin of its `request()`, which cost a tenth of the process under load.
 */
function post(pool: Pool, path: string, headers: Record<string, string>, body: string | Buffer): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let status = 0;
    let type = '';
    pool.dispatch(
      { method: 'POST', path, headers, body },
      {
        // Its presence marks the handler as undici's current interface (the others follow it).
        onRequestStart() {},
        onResponseStart(_controller, statusCode, responseHeaders) {
          status = statusCode;
          type = String(responseHeaders['content-type'] ?? '');
        },
        onResponseData(controller, chunk) {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) controller.abort(new Error(`Discord's answer to a callback was over ${MAX_ANSWER_BYTES} bytes`));
          else chunks.push(chunk);
        },
        onResponseEnd() {
          resolve({ status, type, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

/**
 * Callbacks straight over a keep-alive pool to `rest`'s API; a 429, a 5xx or a connection failure
 * goes through `rest` itself (discord.js' queue), which waits as Discord asks and retries.
 * `observe` hears each callback this way answered (accepted or refused); those handed to `rest` are
 * counted there. `logger` hears, once a minute at most, that the direct way failed and the queue took over.
 */
export function createCallbackSender(rest: REST, observe?: (ok: boolean) => void, logger?: Logger): CallbackSender {
  const api = new URL(`${rest.options.api}/v${rest.options.version}`);
  // Discord's own deadline for a callback is the interaction's 3 s; past 15 s, as discord.js, give up.
  const pool = new Pool(api.origin, { keepAliveTimeout: 30_000, connections: 64, headersTimeout: 15_000, bodyTimeout: 15_000 });
  // Autocomplete choices cannot be deferred and are a few hundred bytes: their own connections, so
  // that they never queue behind replies carrying cards while every connection of the pool is busy.
  // undici writes on a connection that sat idle only after a setImmediate (its check for a
  // desynchronised response): under a burst the choices leave 0.55 to 1.55 ms p50 after they are
  // made, not at once. Kept, not bypassed (the README's cards bench says why).
  const choicesPool = new Pool(api.origin, { keepAliveTimeout: 30_000, connections: 8, headersTimeout: 15_000, bodyTimeout: 15_000 });
  const userAgent = `${DefaultUserAgent} ${rest.options.userAgentAppendix}`.trim();
  const base = api.pathname.replace(/\/$/, '');
  const jsonHeaders = { 'user-agent': userAgent, 'content-type': 'application/json' };
  const queued = (route: `/${string}`, body: unknown, files: readonly RawFile[]) => rest.post(route, { body, files: [...files], auth: false });
  const warnings = new WarningThrottle();
  const fellBack = (e: unknown) => {
    const alikeLeftOut = warnings.take();
    if (alikeLeftOut === undefined) return;
    // The route carries the interaction's token: only the cause is logged.
    logger?.warn({ alikeLeftOut, err: (e as Error).message, code: (e as { code?: string }).code ?? null }, 'interaction callback failed on its own connection; sent through the REST queue');
  };
  return {
    async send(interactionId, token, body, files = []) {
      const route = Routes.interactionCallback(interactionId, token);
      let answer: Posted;
      try {
        if (files.length) {
          const form = multipart(body, files);
          answer = await post(pool, `${base}${route}`, { 'user-agent': userAgent, 'content-type': form.contentType }, form.body);
        } else {
          const choices = (body as { type?: unknown } | undefined)?.type === InteractionResponseType.ApplicationCommandAutocompleteResult;
          answer = await post(choices ? choicesPool : pool, `${base}${route}`, jsonHeaders, JSON.stringify(body));
        }
      } catch (e) {
        fellBack(e);
        return queued(route, body, files);
      }
      if (answer.status === 429 || answer.status >= 500) return queued(route, body, files);
      let data: unknown = answer.body;
      if (answer.type.startsWith('application/json') && answer.body.length > 0) {
        try {
          data = JSON.parse(answer.body.toString('utf8'));
        } catch {
          data = answer.body;
        }
      }
      const ok = answer.status >= 200 && answer.status < 300;
      observe?.(ok);
      if (ok) return data;
      const raw = (data && typeof data === 'object' && !Buffer.isBuffer(data) ? data : { message: `${answer.status}`, code: 0 }) as ConstructorParameters<typeof DiscordAPIError>[0];
      throw new DiscordAPIError(raw, 'code' in raw ? raw.code : answer.status, answer.status, 'POST', `${api.origin}${base}${route}`, { files: [...files], body });
    },
    close: () => Promise.all([pool.close(), choicesPool.close()]).then(() => undefined),
  };
}
