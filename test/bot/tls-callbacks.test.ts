// The real bot process with Discord's REST API over TLS, as in production (https://discord.com/api,
// or an https REST proxy): a local HTTPS server with a certificate made for the test stands in front
// of the Discord double, trusted by the bot through NODE_EXTRA_CA_CERTS as an operator's own CA
// would be. The choices go out with Node's client and the replies with undici: both must reach it
// directly, not through discord.js' queue after a failure.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { autocomplete, chatInput, startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { startBot, type BotProcess } from '../helpers/bot.js';
import { settled } from '../helpers/interactions.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.tls-token-abcdefghijklmnopqrstuvwxy';

let double: DiscordDouble;
let tls: Server;
let bot: BotProcess;
/** The paths of the requests that came in over TLS. */
const overTls: string[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tls-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  double = await startDiscordDouble({ token: TOKEN });
  const upstream = new URL(double.apiUrl);
  // Every request passed through to the double as it came.
  tls = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    overTls.push(req.url ?? '');
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  const port = (tls.address() as AddressInfo).port;
  bot = startBot({ DISCORD_TOKEN: TOKEN, DISCORD_API_URL: `https://127.0.0.1:${port}${upstream.pathname}`, NODE_EXTRA_CA_CERTS: cert });
  await double.waitForReady(30_000);
  await bot.storeLoaded();
}, 40_000);

afterAll(async () => {
  if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
  tls.closeAllConnections();
  await new Promise<void>((resolve) => tls.close(() => resolve()));
  await double.close();
});

describe('Discord’s REST API over TLS', () => {
  it('gets autocomplete choices and a reply to Discord on the bot’s own connections, both over TLS', async () => {
    const typed = await settled(
      double.dispatchInteraction(autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: 'pc' }, focused: 'platform' })),
      15_000,
      null,
    );
    expect((typed[0]?.body as { type: number }).type).toBe(8);
    const ran = await settled(
      double.dispatchInteraction(chatInput({ group: 'title_b', subcommand: 'profile', options: { platform: 'pc_store_b', player: 'Wraithling' } })),
      15_000,
      null,
    );
    // A reply, or a deferral where a busy machine spent the budget for one: a callback either way.
    expect([4, 5]).toContain((ran[0]?.body as { type: number }).type);
    // Both callbacks came over TLS; neither failed on its own connection and went through the REST queue.
    expect(overTls.filter((p) => p.endsWith('/callback'))).toHaveLength(2);
    expect(bot.output()).not.toContain('failed on its own connection');
  }, 30_000);
});
