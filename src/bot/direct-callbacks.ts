// Interaction callbacks (POST /interactions/{id}/{token}/callback: the reply, the update, the
// autocomplete choices) sent straight over a keep-alive undici pool instead of through discord.js'
// REST queue. Every answer is one of these, and the queue was a quarter of the bot's CPU under load:
// a rate-limit handler looked up or made per interaction id, headers and URL built anew, and a card
// travelling as FormData -> Blob -> web stream -> ArrayBuffer before a byte was sent. Callbacks carry
// the interaction's token in the path, need no Authorization and are outside the bot's global rate
// limit, so there is no queue to keep. What Discord answers is read the way discord.js reads it. A
// 429, a 5xx or a connection failure goes to discord.js' own path, which waits and retries.
import { randomBytes } from 'node:crypto';

import { DefaultUserAgent, DiscordAPIError, Routes, type REST, type RawFile } from 'discord.js';
import { Agent, request } from 'undici';

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

/**
 * Callbacks straight over a keep-alive pool to `rest`'s API; a 429, a 5xx or a connection failure
 * goes through `rest` itself (discord.js' queue), which waits as Discord asks and retries.
 */
export function createCallbackSender(rest: REST): CallbackSender {
  // Discord's own deadline for a callback is the interaction's 3 s; past 15 s, as discord.js, give up.
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64, headersTimeout: 15_000, bodyTimeout: 15_000 });
  const userAgent = `${DefaultUserAgent} ${rest.options.userAgentAppendix}`.trim();
  const base = `${rest.options.api}/v${rest.options.version}`;
  const queued = (route: `/${string}`, body: unknown, files: readonly RawFile[]) => rest.post(route, { body, files: [...files], auth: false });
  return {
    async send(interactionId, token, body, files = []) {
      const route = Routes.interactionCallback(interactionId, token);
      const url = `${base}${route}`;
      const headers: Record<string, string> = { 'user-agent': userAgent };
      let payload: string | Buffer;
      if (files.length) {
        const form = multipart(body, files);
        payload = form.body;
        headers['content-type'] = form.contentType;
      } else {
        payload = JSON.stringify(body);
        headers['content-type'] = 'application/json';
      }
      let res;
      try {
        res = await request(url, { method: 'POST', headers, body: payload, dispatcher: agent });
      } catch {
        return queued(route, body, files);
      }
      if (res.statusCode === 429 || res.statusCode >= 500) {
        await res.body.dump();
        return queued(route, body, files);
      }
      const type = String(res.headers['content-type'] ?? '');
      const data: unknown = type.startsWith('application/json') ? await res.body.json() : await res.body.arrayBuffer();
      if (res.statusCode >= 200 && res.statusCode < 300) return data;
      const raw = (data && typeof data === 'object' && !(data instanceof ArrayBuffer) ? data : { message: `${res.statusCode}`, code: 0 }) as ConstructorParameters<typeof DiscordAPIError>[0];
      throw new DiscordAPIError(raw, 'code' in raw ? raw.code : res.statusCode, res.statusCode, 'POST', url, { files: [...files], body });
    },
    close: () => agent.close(),
  };
}
