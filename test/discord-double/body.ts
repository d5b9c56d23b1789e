// Reads a REST request body the way Discord interprets it: JSON, or multipart/form-data where the
// JSON travels in the `payload_json` part and every other file part is an upload.
import type { IncomingMessage } from 'node:http';

export interface UploadedFile {
  /** The form field, e.g. `files[0]`. */
  field: string;
  filename: string;
  contentType: string;
  size: number;
  /** The first 32 bytes, hex: enough to tell a PNG and its width and height (IHDR) without keeping the bytes. */
  head: string;
}

export interface ParsedBody {
  body: unknown;
  files: UploadedFile[];
}

/** A body Discord would refuse before looking at it; carries Discord's answer. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

// Discord's own ceiling for an upload request to a server without boosts is 10 MiB; some slack for
// the form encoding, and a bound so that a runaway client cannot eat the test process's memory.
const MAX_BODY_BYTES = 32 * 1024 * 1024;

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyError(413, 40005, 'Request entity too large'));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

// Half a surrogate pair: a high half not followed by a low one, or a low half not after a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether any string in `value` holds half a surrogate pair. */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  return typeof value === 'object' && value !== null && Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(v));
}

function parseJson(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new BodyError(400, 50109, 'The request body contains invalid JSON.');
  }
  // Discord keeps text as UTF-8, where half a surrogate pair cannot be written, and refuses it (a 500
  // has been seen for a custom_id: discord-api-docs#6561). JSON.stringify writes a lone half as an
  // escape, so only a body with such an escape is walked.
  if (/\\u[dD][89a-fA-F]/.test(text) && hasLoneSurrogate(body)) throw new BodyError(400, 50035, 'Invalid Form Body: a string is not valid UTF-8');
  return body;
}

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

/** A header's parameter (`name="files[0]"`), unquoted; undici and discord.js escape quotes as %22. */
function parameter(header: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|;)\\s*${name}=(?:"([^"]*)"|([^;\\s]*))`, 'i').exec(header);
  return m ? (m[1] ?? m[2]) : undefined;
}

/**
 * multipart/form-data as Discord reads it (RFC 7578): parts between `--boundary` lines, each with
 * its headers, the last closed by `--boundary--`. Read here with Buffer searches (the double reads a
 * card with every profile the bot answers; a general parser cost more than the bot's whole answer);
 * anything out of shape is Discord's 50035. `double.test.ts` checks it against undici's parser.
 */
export function readForm(raw: Buffer, contentType: string): ParsedBody {
  const invalid = () => new BodyError(400, 50035, 'Invalid Form Body');
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      throw invalid();
    }
  };
  const boundary = parameter(contentType.slice(contentType.indexOf(';') + 1), 'boundary');
  if (!boundary || boundary.length > 70) throw invalid();
  const delimiter = Buffer.from(`--${boundary}`);
  if (raw.indexOf(delimiter) !== 0) throw invalid();
  let body: unknown = undefined;
  const files: UploadedFile[] = [];
  let at = delimiter.length;
  for (;;) {
    // After a delimiter: `--` ends the form, a line break starts a part.
    if (raw[at] === 0x2d && raw[at + 1] === 0x2d) break;
    if (raw.indexOf(CRLF, at) !== at) throw invalid();
    const headersEnd = raw.indexOf(HEADERS_END, at);
    if (headersEnd < 0) throw invalid();
    const headers = new Map<string, string>();
    for (const line of raw.toString('utf8', at + 2, headersEnd).split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw invalid();
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const start = headersEnd + HEADERS_END.length;
    const end = raw.indexOf(Buffer.concat([CRLF, delimiter]), start);
    if (end < 0) throw invalid();
    const disposition = headers.get('content-disposition') ?? '';
    const field = parameter(disposition, 'name');
    if (!disposition.toLowerCase().startsWith('form-data') || field === undefined) throw invalid();
    const decoded = decode(field);
    const filename = parameter(disposition, 'filename');
    if (filename === undefined) {
      if (decoded === 'payload_json') body = parseJson(raw.toString('utf8', start, end));
    } else {
      files.push({
        field: decoded,
        filename: decode(filename),
        contentType: headers.get('content-type') ?? 'application/octet-stream',
        size: end - start,
        head: raw.toString('hex', start, Math.min(end, start + 32)),
      });
    }
    at = end + CRLF.length + delimiter.length;
  }
  return { body, files };
}

export async function readBody(req: IncomingMessage): Promise<ParsedBody> {
  const raw = await readAll(req);
  const type = req.headers['content-type'] ?? '';
  if (raw.length === 0) return { body: undefined, files: [] };
  if (type.startsWith('multipart/form-data')) return readForm(raw, type);
  const text = raw.toString('utf8');
  if (type.startsWith('application/json')) return { body: parseJson(text), files: [] };
  return { body: text, files: [] };
}
