// What checking Discord's Ed25519 signature costs an HTTP worker per interaction: CPU and wall time
// of `verifySignature` over a 2 KB body (a component interaction's size), 20,000 times.
//   npx tsx bench/interaction-signature.ts
import { generateKeyPairSync, sign } from 'node:crypto';

import { ed25519PublicKey, verifySignature } from '../src/bot/signature.js';

const keys = generateKeyPairSync('ed25519');
const key = ed25519PublicKey(Buffer.from(keys.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('hex'));
const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(2_000) }));
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = sign(null, Buffer.concat([Buffer.from(timestamp), body]), keys.privateKey).toString('hex');

const n = 20_000;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let held = 0;
for (let i = 0; i < n; i++) if (verifySignature(key, timestamp, body, signature)) held++;
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
if (held !== n) throw new Error(`only ${held} of ${n} signatures held`);
process.stdout.write(`${n} signatures checked: ${((cpu.user + cpu.system) / 1_000 / n).toFixed(3)} ms CPU and ${(wall / n).toFixed(3)} ms wall each\n`);
