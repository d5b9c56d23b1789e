import { generateKeyPairSync, sign } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { ed25519PublicKey, verifySignature } from '../../src/bot/signature.js';

const pair = () => {
  const keys = generateKeyPairSync('ed25519');
  const hex = Buffer.from(keys.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('hex');
  return { hex, privateKey: keys.privateKey };
};

describe('Ed25519 interaction signatures', () => {
  const { hex, privateKey } = pair();
  const key = ed25519PublicKey(hex);
  const body = Buffer.from('{"type":1}');
  const timestamp = '1795000000';
  const signature = sign(null, Buffer.concat([Buffer.from(timestamp), body]), privateKey).toString('hex');

  it('holds for the timestamp and body the key signed, from the portal’s 64-hex-digit key', () => {
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(verifySignature(key, timestamp, body, signature)).toBe(true);
    expect(verifySignature(ed25519PublicKey(hex.toUpperCase()), timestamp, body, signature.toUpperCase())).toBe(true);
  });

  it('fails for another body, another timestamp, another key, or a malformed signature', () => {
    expect(verifySignature(key, timestamp, Buffer.from('{"type":2}'), signature)).toBe(false);
    expect(verifySignature(key, '1795000001', body, signature)).toBe(false);
    expect(verifySignature(ed25519PublicKey(pair().hex), timestamp, body, signature)).toBe(false);
    expect(verifySignature(key, timestamp, body, signature.slice(2))).toBe(false);
    expect(verifySignature(key, timestamp, body, 'zz'.repeat(64))).toBe(false);
  });

  it('refuses a key that is not 64 hex digits', () => {
    expect(() => ed25519PublicKey('abc')).toThrow('64 hex digits');
  });
});
