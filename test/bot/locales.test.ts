// A German, a French, a Spanish and a Brazilian reader against the real bot process and the Discord
// double: the same commands answer in their language (replies, errors, buttons, autocomplete), and
// English readers see what they always saw.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { autocomplete, chatInput, component, startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { startBot, type BotProcess } from '../helpers/bot.js';
import { finalAnswer } from '../helpers/interactions.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.l10n-token-abcdefghijklmnopqrstuvwx';
const USER = { id: '1180000000000000501', username: 'leser' };

let double: DiscordDouble;
let running: BotProcess;

beforeAll(async () => {
  double = await startDiscordDouble({ token: TOKEN });
  running = startBot({ DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, CARDS: 'off' });
  await double.waitForReady(30_000);
  await running.storeLoaded();
}, 40_000);

afterAll(async () => {
  if (running.child.exitCode === null) running.child.kill('SIGKILL');
  await double.close();
});

interface Answer {
  type: number;
  data?: {
    content?: string;
    flags?: number;
    embeds?: { title?: string; description?: string; author?: { name: string }; footer?: { text: string } }[];
    components?: { components: { custom_id?: string; label?: string; placeholder?: string }[] }[];
    choices?: { name: string; value: string }[];
  };
}

/** The answer the reader ends up seeing, directly or after a deferral (a busy machine spends the 800 ms budget). */
async function answer(payload: Parameters<DiscordDouble['dispatchInteraction']>[0]): Promise<Answer> {
  return await finalAnswer(double.dispatchInteraction(payload));
}

const labels = (a: Answer) => (a.data?.components ?? []).flatMap((row) => row.components.map((c) => c.label ?? c.placeholder));

describe('replies in the reader’s language', () => {
  it('answers a German reader in German: the profile, its buttons and its footer', async () => {
    const a = await answer(
      chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' }, user: USER, locale: 'de' }),
    );
    expect(a.type).toBe(4);
    const embed = a.data?.embeds?.[0];
    expect(embed?.author?.name).toBe('Title C · Karriere');
    expect(embed?.description).toMatch(/\*\*[\d.]+\*\* Spiele/);
    expect(embed?.description).toContain('Hauptheld');
    // The way on to the player's heroes, named in German.
    expect(labels(a)).toEqual(['Helden']);
  });

  it('pages a list in the reader’s language', async () => {
    const list = await answer(
      chatInput({ group: 'title_a', subcommand: 'matches', options: { platform: 'pc_store_a', player: 'novaplays' }, user: USER, locale: 'fr' }),
    );
    expect(list.data?.embeds?.[0]?.author?.name).toBe('Title A · Dernières parties');
    expect(labels(list)).toContain('Ouvrir un rapport de partie');
    expect(labels(list)).toContain('Suivant ▶');
    const next = list.data?.components?.flatMap((r) => r.components).find((c) => c.label === 'Suivant ▶');
    // The press comes from a Spanish client: the page is drawn in the presser's language.
    const page = await answer(component({ customId: next!.custom_id!, user: USER, locale: 'es-ES' }));
    expect(page.type).toBe(7);
    expect(page.data?.embeds?.[0]?.author?.name).toBe('Title A · Últimas partidas');
    expect(page.data?.embeds?.[0]?.footer?.text).toContain('página 2');
  });

  it('tells a Brazilian reader what went wrong in Portuguese, privately', async () => {
    const missing = await answer(
      chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: 'Ninguem#0000' }, user: USER, locale: 'pt-BR' }),
    );
    expect(missing.data?.flags).toBe(64);
    expect(missing.data?.content).toMatch(
      /^Nenhum jogador de Title C \*\*Ninguem#0000\*\* em PC\u00a0Store\u00a0C\. Confira a grafia, ou procure com `\/estatísticas title_c buscar`\.$/,
    );
    const nobody = await answer(
      chatInput({ group: 'title_c', subcommand: 'profile', options: {}, user: { id: '1180000000000000599', username: 'novo' }, locale: 'pt-BR' }),
    );
    expect(nobody.data?.content).toContain('Qual jogador?');
    expect(nobody.data?.content).toContain('`jogador:`');
  });

  it('offers autocomplete choices in the reader’s language', async () => {
    const a = await answer(
      autocomplete({
        group: 'title_a',
        subcommand: 'segments',
        options: { platform: 'pc_store_a', player: 'novaplays', segment: '' },
        focused: 'segment',
        user: USER,
        locale: 'de',
      }),
    );
    expect(a.type).toBe(8);
    const names = a.data?.choices?.map((c) => c.name) ?? [];
    expect(names.some((n) => n.startsWith('Karten'))).toBe(true);
    expect(names.some((n) => n.startsWith('Waffen'))).toBe(true);
    // The names a player knows, never the keys sent as values.
    expect(names.filter((n) => /\(\w+\)/.test(n))).toEqual([]);
    // Values stay what the command reads, whatever the language.
    expect(a.data?.choices?.map((c) => c.value)).toContain('map');
    // The linked account offered for an empty player is named as such in the reader's language.
    const linker = { id: '1180000000000000598', username: 'verknuepft' };
    const link = await answer(
      chatInput({ command: 'link', options: { title: 'title_c', platform: 'pc_store_c', player: 'Nova#2231' }, user: linker, locale: 'de' }),
    );
    expect(link.data?.embeds?.[0]?.title).toBe('Verknüpft: Nova#2231');
    // Saved after the answer went out: asked until it is there.
    await vi.waitFor(
      async () => {
        const linked = await answer(
          autocomplete({
            group: 'title_c',
            subcommand: 'profile',
            options: { platform: 'pc_store_c', player: '' },
            focused: 'player',
            user: linker,
            locale: 'de',
          }),
        );
        expect(linked.data?.choices?.map((c) => c.name)).toEqual(['Nova#2231 (dein verknüpftes Konto)']);
      },
      { timeout: 10_000, interval: 200 },
    );
  });

  it('runs the session feed’s command in the reader’s language, in a server and in a DM', async () => {
    const status = await answer(chatInput({ command: 'track', subcommand: 'status', options: {}, user: USER, locale: 'de' }));
    expect(status.data?.flags).toBe(64);
    expect(status.data?.content).toMatch(/^Sitzungs-Feed: \*\*Aus\*\* · 0 Mitglieder folgen ihm\.\nDu folgst keinem: `\/verfolgen beitreten titel:…`/);
    const dm = await answer(chatInput({ command: 'track', subcommand: 'join', options: { title: 'title_b' }, user: USER, guildId: null, locale: 'pt-BR' }));
    expect(dm.data?.content).toBe('O feed de sessões pertence a um servidor: use `/acompanhar` em um servidor.');
  });

  it('answers English and unknown locales in English, as before', async () => {
    for (const locale of ['en-US', 'ja']) {
      const a = await answer(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' }, user: USER, locale }));
      expect(a.data?.embeds?.[0]?.author?.name).toBe('Title C · Career');
    }
  });
});
