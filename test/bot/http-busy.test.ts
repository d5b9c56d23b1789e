// An HTTP interactions worker with MAX_INFLIGHT interactions in flight refuses the next with 503
// (the load balancer sends it to another worker), and tells the operator once a minute at most.
import { REST } from 'discord.js';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { startInteractionsServer, type InteractionsServer } from '../../src/bot/http-interactions.js';
import { MAX_INFLIGHT, type Router } from '../../src/bot/router.js';
import { chatInput, startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { memoryLogger } from '../helpers/lookup.js';

let double: DiscordDouble;
let server: InteractionsServer;
const { logger, logs } = memoryLogger();

beforeAll(async () => {
  double = await startDiscordDouble();
  // A router as busy as a worker gets: every interaction it would take is refused before it is read further.
  const router = { busy: MAX_INFLIGHT } as unknown as Router;
  server = await startInteractionsServer({ host: '127.0.0.1', port: 0, publicKey: double.publicKey, router, rest: new REST(), logger });
});
afterAll(async () => {
  await server.close();
  await double.close();
});

it('refuses interactions past MAX_INFLIGHT with 503, one warning for all of them', async () => {
  const url = `http://127.0.0.1:${server.port}/interactions`;
  const answers = await Promise.all(
    Array.from(
      { length: 40 },
      () => double.postInteraction(url, chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } })).http,
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(40).fill(503));
  const warned = logs()
    .split('\n')
    .filter((l) => l.includes('too many interactions in flight'));
  expect(warned).toHaveLength(1);
  expect(JSON.parse(warned[0]!)).toMatchObject({ level: 40, inflight: MAX_INFLIGHT, alikeLeftOut: 0 });
});
