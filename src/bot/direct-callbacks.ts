// Interaction callbacks (POST /interactions/{id}/{token}/callback: the reply, the update, the
// autocomplete choices) sent straight over a keep-alive undici pool instead of through discord.js'
// REST queue. Every answer is one of these, and the queue was a quarter of the bot's CPU under load:
// a rate-limit handler looked up or made per interaction id, headers and URL built anew, and a card
// travelling as FormData -> Blob -> web stream -> ArrayBuffer before a byte was sent. Callbacks carry
// the interaction's token in the path, need no Authorization and are outside the bot's global rate
// limit, so there is no queue to keep. What Discord answers is read the way discord.js reads it. A
// 429, a 5xx or a connection failure goes to discord.js' own path, which waits and retries.
import { randomBytes } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

import { DefaultUserAgent, DiscordAPIError, InteractionResponseType, Routes, type REST, type RawFile } from 'discord.js';
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { WarningThrottle } from '../lookup/warning-throttle.js';
import { ANSWER_DEADLINE_MS, withinDeadline } from './answer-deadline.js';

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
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(file.key ?? `files[${i}]`)}; filename=${quoted(file.name)}\r\nContent-Type: ${type}\r\n\r\n`,
      ),
      data,
      Buffer.from('\r\n'),
    );
  });
  if (json !== undefined)
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(json)}\r\n`),
    );
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Sends interaction callbacks: the first answer of a gateway interaction. */
export interface CallbackSender {
  /**
   * Posts `body` (and `files`, as multipart) to the interaction's callback route; rejects with
   * Discord's error. `onWritten` is called as the request goes out on a connection (its headers are
   * written next), after undici's own wait for an idle one; not when the REST queue sends it.
   */
  send(interactionId: string, token: string, body: unknown, files?: readonly RawFile[], onWritten?: () => void): Promise<unknown>;
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

/** An answer's bytes as they come, up to MAX_ANSWER_BYTES: `add` gives the error to end the answer with past it. */
function answerBytes(): { add(chunk: Buffer): Error | undefined; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    add(chunk) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) return new Error(`Discord's answer to a callback was over ${MAX_ANSWER_BYTES} bytes`);
      chunks.push(chunk);
      return undefined;
    },
    bytes: () => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)),
  };
}

/**
 * One POST on the pool, read into a buffer: undici's handler interface, without the stream, the
 * promise chain and the body mixin of its `request()`, which cost a tenth of the process under load.
 */
function post(pool: Pool, path: string, headers: Record<string, string>, body: string | Buffer, onWritten?: () => void): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const answer = answerBytes();
    let status = 0;
    let type = '';
    pool.dispatch(
      { method: 'POST', path, headers, body },
      {
        // Its presence marks the handler as undici's current interface (the others follow it). undici
        // calls it on the connection the request goes out on, just before writing its headers.
        onRequestStart() {
          onWritten?.();
        },
        onResponseStart(_controller, statusCode, responseHeaders) {
          status = statusCode;
          type = String(responseHeaders['content-type'] ?? '');
        },
        onResponseData(controller, chunk) {
          const tooLarge = answer.add(chunk);
          if (tooLarge) controller.abort(tooLarge);
        },
        onResponseEnd() {
          resolve({ status, type, body: answer.bytes() });
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

/** What a callback POST got back, read into a buffer (at most MAX_ANSWER_BYTES). */
function readAnswer(response: IncomingMessage, resolve: (p: Posted) => void, reject: (e: Error) => void): void {
  const answer = answerBytes();
  response.on('data', (chunk: Buffer) => {
    const tooLarge = answer.add(chunk);
    if (tooLarge) response.destroy(tooLarge);
  });
  // A connection lost before the answer ends is an error here too (Node's 'aborted'): never a wait without end.
  response.on('error', reject);
  response.on('end', () => resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type'] ?? ''), body: answer.bytes() }));
}

/**
 * Autocomplete choices POSTed with Node's own client over a keep-alive agent: it writes the request
 * in the same turn of the event loop (its next tick). undici writes on a connection that sat idle
 * only after a `setImmediate`, once the rest of the loop's poll phase has run (its check for bytes
 * the server sent unasked, GHSA-35p6-xmwp-9g52): in a burst of replies that held the choices back
 * behind the whole poll phase before a byte left (docs/benchmarks.md, section 7). Node's agent makes the same check its own way: a free connection that receives
 * anything is destroyed, never reused. `onWritten` is called just before the request is written.
 */
function postNow(send: typeof httpRequest, url: URL, options: RequestOptions, body: string, onWritten?: () => void): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers, 'content-length': Buffer.byteLength(body) };
    const req: ClientRequest = send(url, { ...options, method: 'POST', headers }, (response) => readAnswer(response, resolve, reject));
    // Emitted on the connection it goes out on, right before its headers and body are written.
    req.once('socket', () => onWritten?.());
    req.setTimeout(CALLBACK_TIMEOUT_MS, () => req.destroy(new Error(`no answer to the callback within ${CALLBACK_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Discord's own deadline for a callback is the interaction's 3 s; past 15 s, as discord.js, give up. */
const CALLBACK_TIMEOUT_MS = 15_000;

/**
 * Callbacks straight over a keep-alive pool to `rest`'s API; a 429, a 5xx or a connection failure
 * goes through `rest` itself (discord.js' queue), which waits as Discord asks and retries.
 * `observe` hears each callback this way answered (accepted or refused); those handed to `rest` are
 * counted there. `logger` hears, once a minute at most, that the direct way failed and the queue took over.
 * A callback handed to the queue settles within `deadlineMs` (answer-deadline.ts).
 */
export function createCallbackSender(rest: REST, observe?: (ok: boolean) => void, logger?: Logger, deadlineMs = ANSWER_DEADLINE_MS): CallbackSender {
  const api = new URL(`${rest.options.api}/v${rest.options.version}`);
  const pool = new Pool(api.origin, { keepAliveTimeout: 30_000, connections: 64, headersTimeout: CALLBACK_TIMEOUT_MS, bodyTimeout: CALLBACK_TIMEOUT_MS });
  // Autocomplete choices cannot be deferred and are a few hundred bytes: connections of their own,
  // so that they never queue behind replies carrying cards while every connection of the pool is
  // busy, and Node's client, which writes them at once (postNow).
  const secure = api.protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: 8, maxFreeSockets: 8, timeout: 30_000 };
  const choicesAgent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const sendChoices = secure ? httpsRequest : httpRequest;
  const userAgent = `${DefaultUserAgent} ${rest.options.userAgentAppendix}`.trim();
  const base = api.pathname.replace(/\/$/, '');
  const jsonHeaders = { 'user-agent': userAgent, 'content-type': 'application/json' };
  const queued = (route: `/${string}`, body: unknown, files: readonly RawFile[]) =>
    withinDeadline('a callback sent through the REST queue', (signal) => rest.post(route, { body, files: [...files], auth: false, signal }), deadlineMs);
  const warnings = new WarningThrottle();
  const fellBack = (e: unknown) => {
    const alikeLeftOut = warnings.take();
    if (alikeLeftOut === undefined) return;
    // The route carries the interaction's token: only the cause is logged.
    logger?.warn(
      { alikeLeftOut, err: (e as Error).message, code: (e as { code?: string }).code ?? null },
      'interaction callback failed on its own connection; sent through the REST queue',
    );
  };
  return {
    async send(interactionId, token, body, files = [], onWritten) {
      const route = Routes.interactionCallback(interactionId, token);
      let answer: Posted;
      try {
        if (files.length) {
          const form = multipart(body, files);
          answer = await post(pool, `${base}${route}`, { 'user-agent': userAgent, 'content-type': form.contentType }, form.body, onWritten);
        } else {
          const choices = (body as { type?: unknown } | undefined)?.type === InteractionResponseType.ApplicationCommandAutocompleteResult;
          answer = choices
            ? await postNow(sendChoices, new URL(`${base}${route}`, api.origin), { agent: choicesAgent, headers: jsonHeaders }, JSON.stringify(body), onWritten)
            : await post(pool, `${base}${route}`, jsonHeaders, JSON.stringify(body), onWritten);
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
      const raw = (data && typeof data === 'object' && !Buffer.isBuffer(data) ? data : { message: `${answer.status}`, code: 0 }) as ConstructorParameters<
        typeof DiscordAPIError
      >[0];
      throw new DiscordAPIError(raw, 'code' in raw ? raw.code : answer.status, answer.status, 'POST', `${api.origin}${base}${route}`, {
        files: [...files],
        body,
      });
    },
    close: () => {
      choicesAgent.destroy();
      return pool.close();
    },
  };
}
