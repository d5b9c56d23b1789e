// Discord signs every interaction it POSTs to an Interactions Endpoint URL with the application's
// Ed25519 key: the signature (X-Signature-Ed25519, hex) covers the timestamp header's text followed
// by the raw body. node:crypto verifies it; no dependency needed.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

// DER prefix of an SPKI Ed25519 public key: a raw 32-byte key follows it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The application's public key (64 hex digits, as the developer portal shows it) as a key object. */
export function ed25519PublicKey(hex: string): KeyObject {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('an Ed25519 public key is 64 hex digits');
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
}

/** Whether `signature` (hex) is the key's signature of `timestamp` + `body`. Malformed input is simply false. */
export function verifySignature(key: KeyObject, timestamp: string, body: Buffer, signature: string): boolean {
  if (!/^[0-9a-fA-F]{128}$/.test(signature)) return false;
  try {
    return verify(null, Buffer.concat([Buffer.from(timestamp, 'utf8'), body]), key, Buffer.from(signature, 'hex'));
  } catch {
    return false;
  }
}
