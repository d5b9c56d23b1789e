// The Discord double against a real discord.js Client in-process: if discord.js accepts it as
// Discord (login, interactions, replies, resume), the bot's end-to-end tests can trust it.
import { once } from 'node:events';

import {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  Client,
  DiscordAPIError,
  Events,
  MessageFlags,
  Routes,
  StringSelectMenuInteraction,
  type Interaction,
} from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';

import { autocomplete, chatInput, component, startDiscordDouble, type DiscordDouble } from './index.js';

let double: DiscordDouble;
let client: Client;

/** Runs `handle` on the next interaction the client emits; bounded, and its errors reach the test. */
function onNextInteraction<T>(handle: (interaction: Interaction) => Promise<T>, timeoutMs = 5000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(Events.InteractionCreate, listener);
      reject(new Error(`no interaction reached the client within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (interaction: Interaction) => {
      clearTimeout(timer);
      handle(interaction).then(resolve, reject);
    };
    client.once(Events.InteractionCreate, listener);
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  // A short heartbeat interval so that heartbeats and their ACKs happen during the run.
  double = await startDiscordDouble({ heartbeatIntervalMs: 400 });
  client = new Client({ intents: [], rest: { api: double.apiUrl } });
  await client.login(double.token);
});

afterAll(async () => {
  try {
    await client?.destroy();
  } finally {
    await double?.close();
  }
});

describe('login', () => {
  it('identifies, gets READY and is ready as the bot user', async () => {
    await double.waitForReady(1000);
    expect(client.isReady()).toBe(true);
    expect(client.user?.id).toBe(double.botUserId);
    expect(client.application?.id).toBe(double.applicationId);
    expect(double.identifies).toHaveLength(1);
    expect(double.identifies[0]).toMatchObject({ token: double.token, intents: 0, shard: [0, 1] });
    expect(double.restCalls[0]).toMatchObject({ method: 'GET', path: '/gateway/bot', status: 200 });
    expect(double.restCalls[0]?.headers.authorization).toBe(`Bot ${double.token}`);
  });
});

describe('interactions', () => {
  it('delivers a chat-input command with its group, subcommand and options, and takes one reply', async () => {
    const payload = chatInput({
      command: 'stats',
      group: 'player',
      subcommand: 'profile',
      options: { name: 'Ash', platform: 'pc', season: 3, ranked: true },
    });
    const handled = onNextInteraction(async (interaction) => {
      if (!(interaction instanceof ChatInputCommandInteraction)) throw new Error(`got ${interaction.constructor.name}`);
      const seen = {
        command: interaction.commandName,
        group: interaction.options.getSubcommandGroup(),
        subcommand: interaction.options.getSubcommand(),
        name: interaction.options.getString('name'),
        season: interaction.options.getInteger('season'),
        ranked: interaction.options.getBoolean('ranked'),
        guildId: interaction.guildId,
        userId: interaction.user.id,
        inGuild: interaction.inGuild(),
      };
      await interaction.reply({ content: 'hi' });
      // discord.js refuses a second reply itself; going to REST shows what Discord says.
      const second = await rejection(
        client.rest.post(Routes.interactionCallback(interaction.id, interaction.token), {
          body: { type: 4, data: { content: 'again' } },
          auth: false,
        }),
      );
      return { seen, second };
    });
    const handle = double.dispatchInteraction(payload);
    const { seen, second } = await handled;

    expect(seen).toEqual({
      command: 'stats',
      group: 'player',
      subcommand: 'profile',
      name: 'Ash',
      season: 3,
      ranked: true,
      guildId: payload.guild_id,
      userId: payload.member?.user.id,
      inGuild: true,
    });
    const callback = await handle.firstResponse();
    expect(callback).toMatchObject({
      method: 'POST',
      path: `/interactions/${handle.id}/${handle.token}/callback`,
      status: 204,
      body: { type: 4, data: { content: 'hi' } },
    });
    // discord.js always states with_response, and sends interaction routes without the bot token.
    expect(callback.query).toEqual({ with_response: 'false' });
    expect(callback.headers.authorization).toBeUndefined();
    expect(callback.at).toBeGreaterThanOrEqual(handle.dispatchedAt);
    expect(second).toBeInstanceOf(DiscordAPIError);
    expect(second).toMatchObject({ code: 40060, status: 400 });
    expect(handle.responses()).toHaveLength(2);
  });

  it('shows deferReply then editReply as callback type 5 and a PATCH of @original', async () => {
    const handled = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
      await interaction.deferReply();
      const message = await interaction.editReply({ content: 'Ash: 1.23 K/D' });
      return { content: message.content, loading: message.flags.has(MessageFlags.Loading) };
    });
    const handle = double.dispatchInteraction(chatInput({ subcommand: 'profile', options: { name: 'Ash' } }));
    await expect(handled).resolves.toEqual({ content: 'Ash: 1.23 K/D', loading: false });
    const [callback, edit] = await handle.waitForResponses(2);
    expect(callback).toMatchObject({ status: 204, body: { type: 5 } });
    expect(edit).toMatchObject({
      method: 'PATCH',
      path: `/webhooks/${double.applicationId}/${handle.token}/messages/@original`,
      status: 200,
      body: { content: 'Ash: 1.23 K/D' },
    });
    expect(edit?.rawPath).toMatch(/\/messages\/%40original$/);
  });

  it('turns the first follow-up after a deferred reply into that reply, as Discord does', async () => {
    const handled = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
      const deferred = await interaction.deferReply({ flags: MessageFlags.Ephemeral, withResponse: true });
      const first = await interaction.followUp({ content: 'one' });
      const second = await interaction.followUp({ content: 'two' });
      return {
        loading: deferred.interaction.responseMessageLoading,
        deferredId: deferred.interaction.responseMessageId,
        first: { id: first.id, ephemeral: first.flags.has(MessageFlags.Ephemeral) },
        secondId: second.id,
      };
    });
    double.dispatchInteraction(chatInput());
    const r = await handled;
    expect(r.loading).toBe(true);
    expect(r.first).toEqual({ id: r.deferredId, ephemeral: true });
    expect(r.secondId).not.toBe(r.deferredId);
  });

  it('answers withResponse, follow-ups, fetches and deletes like Discord', async () => {
    const handled = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
      const response = await interaction.reply({ content: 'first', flags: MessageFlags.Ephemeral, withResponse: true });
      const followUp = await interaction.followUp({ content: 'second' });
      const fetched = await interaction.fetchReply();
      await interaction.deleteReply();
      const gone = await rejection(interaction.fetchReply());
      return {
        resourceType: response.resource?.type,
        messageContent: response.resource?.message?.content,
        ephemeral: response.interaction.responseMessageEphemeral,
        followUp: followUp.content,
        fetched: fetched.content,
        gone,
      };
    });
    const handle = double.dispatchInteraction(chatInput({ guildId: null }));
    const result = await handled;
    expect(result).toMatchObject({ resourceType: 4, messageContent: 'first', ephemeral: true, followUp: 'second', fetched: 'first' });
    expect(result.gone).toMatchObject({ code: 10008, status: 404 });
    expect(handle.responses().map((c) => `${c.method} ${c.status}`)).toEqual(['POST 200', 'POST 200', 'GET 200', 'DELETE 204', 'GET 404']);
    expect(handle.responses()[0]?.query).toEqual({ with_response: 'true' });
  });

  it('refuses what Discord refuses: an empty or oversized reply, and edits before the acknowledgement', async () => {
    const handled = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
      const early = await rejection(interaction.webhook.editMessage('@original', { content: 'too early' }));
      const long = await rejection(interaction.reply({ content: 'x'.repeat(2001) }));
      const empty = await rejection(
        client.rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body: { type: 4, data: {} }, auth: false }),
      );
      await interaction.reply({ content: 'ok' });
      return { early, long, empty };
    });
    const handle = double.dispatchInteraction(chatInput());
    const { early, long, empty } = await handled;
    expect(early).toMatchObject({ code: 10015, status: 404 });
    expect(long).toMatchObject({ code: 50035, status: 400 });
    expect((long as DiscordAPIError).message).toContain('data.content[BASE_TYPE_MAX_LENGTH]');
    expect(empty).toMatchObject({ code: 50006, status: 400 });
    expect(handle.responses().map((c) => c.status)).toEqual([404, 400, 400, 204]);
  });

  it('takes file uploads (multipart) and records them without their bytes', async () => {
    const handled = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
      const response = await interaction.reply({
        content: 'card',
        files: [{ attachment: Buffer.from('not really a png'), name: 'card.png' }],
        withResponse: true,
      });
      return response.resource?.message?.attachments.first()?.name;
    });
    const handle = double.dispatchInteraction(chatInput());
    await expect(handled).resolves.toBe('card.png');
    const callback = await handle.firstResponse();
    expect(callback.headers['content-type']).toMatch(/^multipart\/form-data/);
    expect(callback.body).toMatchObject({ type: 4, data: { content: 'card', attachments: [{ id: '0' }] } });
    expect(callback.files).toEqual([
      { field: 'files[0]', filename: 'card.png', contentType: expect.any(String) as unknown, size: 16, head: Buffer.from('not really a png').toString('hex') },
    ]);
  });

  it('points an embed image at attachment://<name> to the uploaded attachment, on send and on edit', async () => {
    const handled = onNextInteraction(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
      const sent = await interaction.reply({
        embeds: [{ title: 'card', image: { url: 'attachment://card.png' } }],
        files: [{ attachment: Buffer.from('png one'), name: 'card.png' }],
        withResponse: true,
      });
      const edited = await interaction.editReply({
        embeds: [{ title: 'again', image: { url: 'attachment://card.png' } }],
        files: [{ attachment: Buffer.from('png two!'), name: 'card.png' }],
        attachments: [],
      });
      const first = sent.resource?.message;
      return {
        first: [first?.embeds[0]?.image?.url, first?.attachments.first()?.url],
        edited: [edited.embeds[0]?.image?.url, edited.attachments.map((a) => a.size)],
      };
    });
    double.dispatchInteraction(chatInput());
    const { first, edited } = await handled;
    expect(first[0]).toMatch(/^https:\/\/cdn\.discordapp\.com\/attachments\/\d+\/\d+\/card\.png$/);
    expect(first[0]).toBe(first[1]);
    // `attachments: []` drops the first upload: the edited message holds only the second.
    expect(edited[1]).toEqual([8]);
    expect(edited[0]).toMatch(/\/card\.png$/);
    expect(edited[0]).not.toBe(first[0]);
  });

  it('delivers autocomplete with the focused option and takes the choices', async () => {
    const handled = onNextInteraction(async (interaction) => {
      if (!(interaction instanceof AutocompleteInteraction)) throw new Error(`got ${interaction.constructor.name}`);
      const focused = interaction.options.getFocused(true);
      await interaction.respond([{ name: 'a', value: 'a' }]);
      return { focused: { name: focused.name, value: focused.value }, platform: interaction.options.getString('platform') };
    });
    const handle = double.dispatchInteraction(autocomplete({ subcommand: 'profile', options: { platform: 'pc', name: 'As' }, focused: 'name' }));
    await expect(handled).resolves.toEqual({ focused: { name: 'name', value: 'As' }, platform: 'pc' });
    expect(await handle.firstResponse()).toMatchObject({
      status: 204,
      body: { type: 8, data: { choices: [{ name: 'a', value: 'a' }] } },
    });
  });

  it('delivers a button press as a ButtonInteraction and takes update() as type 7', async () => {
    const handled = onNextInteraction(async (interaction) => {
      if (!(interaction instanceof ButtonInteraction)) throw new Error(`got ${interaction.constructor.name}`);
      const seen = { customId: interaction.customId, messageId: interaction.message.id, author: interaction.message.author.id };
      await interaction.update({ content: 'updated', components: [] });
      return seen;
    });
    const handle = double.dispatchInteraction(component({ customId: 'refresh:ash', messageId: '1180000000000005000' }));
    await expect(handled).resolves.toEqual({ customId: 'refresh:ash', messageId: '1180000000000005000', author: double.botUserId });
    expect(await handle.firstResponse()).toMatchObject({ status: 204, body: { type: 7, data: { content: 'updated', components: [] } } });
  });

  it('delivers a select menu choice with its values', async () => {
    const handled = onNextInteraction(async (interaction) => {
      if (!(interaction instanceof StringSelectMenuInteraction)) throw new Error(`got ${interaction.constructor.name}`);
      await interaction.deferUpdate();
      return interaction.values;
    });
    const handle = double.dispatchInteraction(component({ customId: 'season', values: ['3'] }));
    await expect(handled).resolves.toEqual(['3']);
    expect(await handle.firstResponse()).toMatchObject({ status: 204, body: { type: 6 } });
  });

  it('answers an interaction it never dispatched with Unknown interaction', async () => {
    const error = await rejection(
      client.rest.post(Routes.interactionCallback('1180000000000009999', 'nope'), { body: { type: 4, data: { content: 'x' } }, auth: false }),
    );
    expect(error).toMatchObject({ code: 10062, status: 404 });
  });
});

describe('intents', () => {
  it('sends guild events only to a client that asked for them, as Discord does', async () => {
    const before = double.stats().filtered;
    double.dispatch('GUILD_CREATE', { id: '1180000000000000999', name: 'Quiet', unavailable: false, channels: [], members: [], roles: [] });
    await new Promise((r) => setTimeout(r, 100));
    expect(double.stats().filtered).toBe(before + 1);
    expect(client.guilds.cache.has('1180000000000000999')).toBe(false);
  });
});

describe('commands', () => {
  const body = [
    {
      name: 'stats',
      description: 'Player stats',
      options: [{ type: 1, name: 'profile', description: 'A profile', options: [{ type: 3, name: 'name', description: 'Player', required: true }] }],
    },
  ];

  it('stores global and guild commands, keeping ids across overwrites', async () => {
    const first = (await client.rest.put(Routes.applicationCommands(double.applicationId), { body })) as { id: string; name: string }[];
    expect(first).toEqual([
      expect.objectContaining({ name: 'stats', application_id: double.applicationId, id: expect.stringMatching(/^\d{17,20}$/) as unknown }),
    ]);
    expect(double.commands.global).toEqual(first);
    const again = (await client.rest.put(Routes.applicationCommands(double.applicationId), { body })) as { id: string }[];
    expect(again[0]?.id).toBe(first[0]?.id);

    await client.rest.put(Routes.applicationGuildCommands(double.applicationId, '1180000000000000100'), { body });
    expect(double.commands.guilds.get('1180000000000000100')).toEqual([expect.objectContaining({ name: 'stats', guild_id: '1180000000000000100' })]);

    const fetched = await client.application?.commands.fetch();
    expect(fetched?.map((c) => c.name)).toEqual(['stats']);
  });

  it('refuses an invalid command the way Discord does', async () => {
    const error = await rejection(client.rest.put(Routes.applicationCommands(double.applicationId), { body: [{ name: 'Stats', description: '' }] }));
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ code: 50035, status: 400 });
    expect(double.commands.global?.map((c) => (c as { name: string }).name)).toEqual(['stats']);
  });

  it('refuses another application’s commands, and a guild the bot is not in, with Missing Access, and a wrong token with 401, as Discord does', async () => {
    const put = (path: string, authorization: string) =>
      fetch(`${double.apiUrl}/v10${path}`, { method: 'PUT', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const bot = `Bot ${double.token}`;
    for (const path of [
      '/applications/1180000000000000777/commands',
      '/applications/1180000000000000777/guilds/1180000000000000100/commands',
      `/applications/${double.applicationId}/guilds/1180000000000000555/commands`,
    ]) {
      const res = await put(path, bot);
      expect(res.status, path).toBe(403);
      expect(await res.json(), path).toEqual({ message: 'Missing Access', code: 50001 });
    }
    expect(double.commands.guilds.has('1180000000000000555')).toBe(false);
    const wrong = await put(`/applications/${double.applicationId}/commands`, 'Bot wrong');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ message: '401: Unauthorized', code: 0 });
  });
});

describe('resume', () => {
  for (const how of ['close', 'terminate'] as const) {
    it(`resumes after the gateway connection is dropped (${how}) and replays what was dispatched meanwhile`, async () => {
      const before = double.stats();
      double.dropConnection(how);
      // Dispatched while the client is away: it must arrive through the RESUME replay.
      const handled = onNextInteraction(async (interaction) => {
        if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
        await interaction.reply({ content: `after ${how}` });
      });
      const handle = double.dispatchInteraction(chatInput({ options: { name: how } }));
      await double.waitForReady(5000);
      await handled;
      expect(await handle.firstResponse()).toMatchObject({ status: 204, body: { type: 4, data: { content: `after ${how}` } } });
      const after = double.stats();
      expect(after.resumes).toBe(before.resumes + 1);
      expect(after.identifies).toBe(before.identifies);
      expect(after.connections).toBe(before.connections + 1);
      expect(client.isReady()).toBe(true);

      // And a dispatch after the resume goes straight through.
      const live = onNextInteraction(async (interaction) => {
        if (!interaction.isRepliable()) throw new Error('not repliable');
        await interaction.reply({ content: 'live' });
      });
      const next = double.dispatchInteraction(chatInput());
      await live;
      expect(await next.firstResponse()).toMatchObject({ status: 204 });
    });
  }

  it('has been heartbeating and got ACKs (no zombie reconnects)', async () => {
    // The first heartbeat of a connection comes at a random point of the (400 ms) interval.
    for (let i = 0; i < 40 && double.stats().heartbeats === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(double.stats().heartbeats).toBeGreaterThan(0);
    expect(double.stats().identifies).toBe(1);
  });
});

describe('REST auth', () => {
  it('answers 401 without the bot token', async () => {
    for (const headers of [{}, { authorization: 'Bot wrong' }, { authorization: double.token }] as Record<string, string>[]) {
      const res = await fetch(`${double.apiUrl}/v10/users/@me`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: '401: Unauthorized', code: 0 });
    }
    const ok = await fetch(`${double.apiUrl}/v10/users/@me`, { headers: { authorization: `Bot ${double.token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id: double.botUserId, bot: true });
  });

  it('records and 404s routes it does not know', async () => {
    const res = await fetch(`${double.apiUrl}/v10/guilds/1/members`, {
      method: 'POST',
      headers: { authorization: `Bot ${double.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'x' }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: '404: Not Found', code: 0 });
    expect(double.restCalls.at(-1)).toMatchObject({ method: 'POST', path: '/guilds/1/members', body: { content: 'x' }, status: 404 });
  });

  it('keeps messages posted to a channel (multipart with files too) and refuses them as Discord does', async () => {
    const post = (channel: string, init: RequestInit & { auth?: boolean }) =>
      fetch(`${double.apiUrl}/v10/channels/${channel}/messages`, {
        method: 'POST',
        ...init,
        headers: { ...(init.auth === false ? {} : { authorization: `Bot ${double.token}` }), ...(init.headers as Record<string, string> | undefined) },
      });
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ embeds: [{ title: 'Session', image: { url: 'attachment://card.png' } }] }));
    form.append('files[0]', new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: 'image/png' }), 'card.png');
    const sent = await post('1180000000000000777', { body: form });
    expect(sent.status).toBe(200);
    const [kept] = double.channelMessages('1180000000000000777');
    expect(kept?.files.map((f) => f.filename)).toEqual(['card.png']);
    const attachments = kept?.message.attachments as { url: string }[];
    expect((kept?.message.embeds as { image: { url: string } }[])[0]?.image.url).toBe(attachments[0]?.url);
    expect((await post('1180000000000000777', { body: JSON.stringify({}), headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect(
      (await post('1180000000000000777', { body: JSON.stringify({ content: 'x' }), headers: { 'content-type': 'application/json' }, auth: false })).status,
    ).toBe(401);
    for (const [code, status] of [
      [10003, 404],
      [50001, 403],
      [50013, 403],
    ] as const) {
      double.setChannelError('1180000000000000778', code);
      const refused = await post('1180000000000000778', { body: JSON.stringify({ content: 'x' }), headers: { 'content-type': 'application/json' } });
      expect(refused.status).toBe(status);
      expect(((await refused.json()) as { code: number }).code).toBe(code);
    }
    double.setChannelError('1180000000000000778', null);
    expect((await post('1180000000000000778', { body: JSON.stringify({ content: 'x' }), headers: { 'content-type': 'application/json' } })).status).toBe(200);
    expect(double.channelMessages('1180000000000000778')).toHaveLength(1);
    expect(double.channelMessages('1180000000000000777')).toHaveLength(1);
  });

  it('makes one message of a channel post sent twice with its nonce enforced, and refuses a nonce past 25 characters', async () => {
    const post = (body: Record<string, unknown>) =>
      fetch(`${double.apiUrl}/v10/channels/1180000000000000779/messages`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { authorization: `Bot ${double.token}`, 'content-type': 'application/json' },
      });
    const first = (await (await post({ content: 'x', nonce: 'n-1', enforce_nonce: true })).json()) as { id: string; nonce: string };
    const again = (await (await post({ content: 'x', nonce: 'n-1', enforce_nonce: true })).json()) as { id: string };
    expect(again.id).toBe(first.id);
    expect(first.nonce).toBe('n-1');
    // Not enforced, a nonce only travels with the message.
    expect((await (await post({ content: 'x', nonce: 'n-1' })).json()) as { id: string }).not.toMatchObject({ id: first.id });
    expect(double.channelMessages('1180000000000000779')).toHaveLength(2);
    const long = await post({ content: 'x', nonce: 'n'.repeat(26), enforce_nonce: true });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ code: 50035, errors: { nonce: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } });
  });
});

/** A bare gateway client, for what discord.js never does on its own. */
async function rawGateway(url: string): Promise<{ ws: WebSocket; next(): Promise<Record<string, unknown>> }> {
  const ws = new WebSocket(`${url}?v=10&encoding=json`);
  const queue: Record<string, unknown>[] = [];
  const waiting: ((v: Record<string, unknown>) => void)[] = [];
  ws.on('message', (data: Buffer) => {
    const payload = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
    const w = waiting.shift();
    if (w) w(payload);
    else queue.push(payload);
  });
  await once(ws, 'open');
  return {
    ws,
    next: () =>
      new Promise((resolve, reject) => {
        const queued = queue.shift();
        if (queued) return resolve(queued);
        const timer = setTimeout(() => reject(new Error('no gateway message within 2 s')), 2000);
        waiting.push((v) => {
          clearTimeout(timer);
          resolve(v);
        });
      }),
  };
}

describe('gateway edge cases (raw client)', () => {
  let raw: DiscordDouble;
  beforeAll(async () => {
    raw = await startDiscordDouble({ interactionTimeoutMs: 100 });
  });
  afterAll(async () => {
    await raw?.close();
  });

  it('closes with 4004 on a bad token and answers an unknown RESUME with INVALID_SESSION', async () => {
    const a = await rawGateway(raw.gatewayUrl);
    expect(await a.next()).toMatchObject({ op: 10, d: { heartbeat_interval: 41_250 } });
    a.ws.send(JSON.stringify({ op: 1, d: null }));
    expect(await a.next()).toEqual({ op: 11 });
    const closed = once(a.ws, 'close');
    a.ws.send(JSON.stringify({ op: 2, d: { token: 'wrong', intents: 0, properties: {} } }));
    const [code] = (await closed) as [number];
    expect(code).toBe(4004);

    const b = await rawGateway(raw.gatewayUrl);
    await b.next();
    b.ws.send(JSON.stringify({ op: 6, d: { token: raw.token, session_id: 'nope', seq: 1 } }));
    expect(await b.next()).toEqual({ op: 9, d: false });
    b.ws.close();
  });

  it('answers a callback after the acknowledgement window with Unknown interaction', async () => {
    const c = await rawGateway(raw.gatewayUrl);
    await c.next();
    c.ws.send(JSON.stringify({ op: 2, d: { token: raw.token, intents: 0, properties: {} } }));
    expect(await c.next()).toMatchObject({ op: 0, t: 'READY', s: 1 });
    const handle = raw.dispatchInteraction(chatInput());
    expect(await c.next()).toMatchObject({ op: 0, t: 'INTERACTION_CREATE', s: 2, d: { id: handle.id } });
    await new Promise((r) => setTimeout(r, 150));
    const res = await fetch(`${raw.apiUrl}/v10/interactions/${handle.id}/${handle.token}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 4, data: { content: 'late' } }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'Unknown interaction', code: 10062 });
    expect(handle.responses()).toHaveLength(1);
    c.ws.close();
    await expect(handle.waitForResponses(2, 50)).rejects.toThrow(/timed out after 50 ms waiting for 2 responses/);
  });
});

describe('shards (raw clients)', () => {
  let sharded: DiscordDouble;
  beforeAll(async () => {
    sharded = await startDiscordDouble({ shardCount: 2 });
  });
  afterAll(async () => {
    await sharded?.close();
  });

  const identify = async (shard?: [number, number]) => {
    const client = await rawGateway(sharded.gatewayUrl);
    await client.next();
    client.ws.send(JSON.stringify({ op: 2, d: { token: sharded.token, intents: 0, properties: {}, ...(shard ? { shard } : {}) } }));
    return client;
  };

  it('refuses an IDENTIFY without a shard (4011) or with one that does not fit the count (4010)', async () => {
    for (const [shard, expected] of [
      [undefined, 4011],
      [[2, 2], 4010],
      [[0, 1], 4010],
    ] as const) {
      const client = await identify(shard as [number, number] | undefined);
      const [code] = (await once(client.ws, 'close')) as [number];
      expect(code, JSON.stringify(shard)).toBe(expected);
    }
  });

  it('sends a guild’s interactions to shard (guild_id >> 22) % count only, and DMs to shard 0', async () => {
    const zero = await identify([0, 2]);
    expect(await zero.next()).toMatchObject({ t: 'READY', d: { shard: [0, 2] } });
    const one = await identify([1, 2]);
    expect(await one.next()).toMatchObject({ t: 'READY', d: { shard: [1, 2] } });
    await sharded.waitForReady();
    const odd = String(3n << 22n);
    const even = String(4n << 22n);
    const a = sharded.dispatchInteraction(chatInput({ guildId: odd }));
    const b = sharded.dispatchInteraction(chatInput({ guildId: even }));
    const dm = sharded.dispatchInteraction(chatInput({ guildId: null }));
    expect([a.shard, b.shard, dm.shard]).toEqual([1, 0, 0]);
    expect(await one.next()).toMatchObject({ t: 'INTERACTION_CREATE', d: { id: a.id } });
    expect(await zero.next()).toMatchObject({ t: 'INTERACTION_CREATE', d: { id: b.id } });
    expect(await zero.next()).toMatchObject({ t: 'INTERACTION_CREATE', d: { id: dm.id } });
    await expect(one.next()).rejects.toThrow('no gateway message');
    const gatewayBot = await fetch(`${sharded.apiUrl}/v10/gateway/bot`, { headers: { authorization: `Bot ${sharded.token}` } });
    expect(await gatewayBot.json()).toMatchObject({ shards: 2 });
    zero.ws.close();
    one.ws.close();
  });
});
