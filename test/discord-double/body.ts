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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyError(400, 50109, 'The request body contains invalid JSON.');
  }
}

export async function readBody(req: IncomingMessage): Promise<ParsedBody> {
  const raw = await readAll(req);
  const type = req.headers['content-type'] ?? '';
  if (raw.length === 0) return { body: undefined, files: [] };
  if (type.startsWith('multipart/form-data')) {
    // undici's form-data parser (Node's global Response) rather than a hand-rolled one.
    let form: FormData;
    try {
      form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    } catch {
      throw new BodyError(400, 50035, 'Invalid Form Body');
    }
    let body: unknown = undefined;
    const files: UploadedFile[] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') {
        if (field === 'payload_json') body = parseJson(value);
      } else {
        const head = Buffer.from(await value.slice(0, 32).arrayBuffer()).toString('hex');
        files.push({ field, filename: value.name, contentType: value.type, size: value.size, head });
      }
    }
    return { body, files };
  }
  const text = raw.toString('utf8');
  if (type.startsWith('application/json')) return { body: parseJson(text), files: [] };
  return { body: text, files: [] };
}
