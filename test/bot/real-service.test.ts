// The real bot process pointed at another compatible service, as an operator with a key would point
// it at the public stats API: real-shaped answers, the service's own spelling of titles and
// platforms, a private player as HTTP 451. Interactions go in through the Discord double.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chatInput, startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { fullSessions, fullTitleBProfile, fullTitleDProfile } from '../fixtures/real-shapes.js';
import { startBot, type BotProcess } from '../helpers/bot.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.real-token-abcdefghijklmnopqrstuvwx';
const KEY = 'real-service-key-0123456789';

let double: DiscordDouble;
let service: FaultServer;
let bot: BotProcess;

beforeAll(async () => {
  double = await startDiscordDouble({ token: TOKEN });
  service = await startFaultServer({ status: 500, body: { errors: [{ code: null, message: 'unexpected request' }] } });
  bot = startBot({
    DISCORD_TOKEN: TOKEN,
    DISCORD_API_URL: double.apiUrl,
    LOOKUP_BASE_URL: `${service.url}/api`,
    LOOKUP_API_KEY: KEY,
    LOOKUP_PATH_VALUES: 'title_b=apex,title_d=csgo,pc_store_a=steam,pc_store_b=origin,pc_store_c=battlenet',
    // What is read here is the text; a card's first draw (its worker loading fonts) could turn the
    // answer into a deferral and an edit, which this test's reader does not follow.
    CARDS: 'off',
  });
  await double.waitForReady(30_000);
}, 40_000);

afterAll(async () => {
  if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
  await double.close();
  await service.close();
});

interface Answer {
  content?: string;
  flags?: number;
  embeds?: { title?: string; description?: string; fields?: { name: string; value: string }[] }[];
}

/** Sends a command and returns its final answer: the reply, or the edit after a deferral. */
async function ask(group: string, subcommand: string, options: Record<string, string>): Promise<Answer> {
  const handle = double.dispatchInteraction(chatInput({ group, subcommand, options }));
  const first = await handle.firstResponse(5_000);
  const body = first.body as { type: number; data?: Answer };
  if (body.type === 4) return body.data ?? {};
  const calls = await handle.waitForResponses(2, 10_000);
  return calls[1]?.body as Answer;
}

describe('the bot against a service in the real layout', () => {
  it('leads a title_d profile with its win rate and headshot rate, asking with the service’s names and the key', async () => {
    service.script({ status: 200, body: { data: fullTitleDProfile() } });
    const answer = await ask('title_d', 'profile', { player: '76561198000000099' });
    const lines = (answer.embeds?.[0]?.description ?? '').split('\n');
    expect(lines[0]).toBe('### K/D\u00a00.88\u00a0· Win\u00a052.3%');
    expect(lines).toContain('Headshots **48.1%** · top\u00a012%');
    const request = service.requests.at(-1)!;
    expect(request.url).toBe('/api/v2/csgo/standard/profile/steam/76561198000000099');
    expect(request.headers['trn-api-key']).toBe(KEY);
  });

  it('says a private profile is private (HTTP 451)', async () => {
    service.script({ status: 451, body: { errors: [{ code: 'CollectorResultStatus::Private', message: 'This profile is still private.' }] } });
    const answer = await ask('title_c', 'profile', { platform: 'pc_store_c', player: 'Hidden#0001' });
    expect(answer.flags).toBe(64);
    expect(answer.content).toContain('keeps their Title C stats private');
    expect(service.requests.at(-1)?.url).toBe('/api/v2/title_c/standard/profile/battlenet/Hidden%230001');
  });

  it('shows the ended sessions of a real sessions list as ended', async () => {
    // The sessions, and the career they are read against.
    // Asked at once, so they may arrive in either order: each answer goes to its own path.
    service.script(
      { status: 200, body: { data: fullSessions() }, path: '/Wraithling/sessions' },
      { status: 200, body: { data: fullTitleBProfile() }, path: '/Wraithling' },
    );
    const answer = await ask('title_b', 'sessions', { platform: 'pc_store_b', player: 'Wraithling' });
    const text = JSON.stringify(answer.embeds);
    expect(text).not.toContain('Playing now');
    expect(answer.embeds?.[0]?.description).toMatch(/^### Latest session\n<t:\d+:R>\u00a0· 45m\u00a0· 2 matches/);
    expect(
      service.requests
        .slice(-2)
        .map((r) => r.url)
        .sort(),
    ).toEqual(['/api/v2/apex/standard/profile/origin/Wraithling', '/api/v2/apex/standard/profile/origin/Wraithling/sessions']);
    expect(bot.output()).not.toContain(KEY);
  });
});
