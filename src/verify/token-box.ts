// Seals what must not be kept in plain text (a user's OAuth2 refresh and access tokens) with
// AES-256-GCM under TOKEN_ENCRYPTION_KEY: a copy of the links file or of Redis reads as nothing
// without the key, and a sealed text altered in the store fails to open instead of reading wrong.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export interface TokenBox {
  seal(text: string): string;
  /** The text sealed; throws when the sealed text was altered or sealed under another key. */
  open(sealed: string): string;
}

/** `key`: 32 bytes (TOKEN_ENCRYPTION_KEY, read as 64 hex digits or base64). */
export function tokenBox(key: Buffer): TokenBox {
  if (key.length !== 32) throw new Error('a token key is 32 bytes');
  return {
    seal(text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) throw new Error('not a sealed token');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** TOKEN_ENCRYPTION_KEY as bytes: 64 hex digits, or base64 of 32 bytes; undefined for anything else. */
export function tokenKeyOf(text: string): Buffer | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const bytes = Buffer.from(t, 'base64');
    return bytes.length === 32 ? bytes : undefined;
  }
  return undefined;
}
