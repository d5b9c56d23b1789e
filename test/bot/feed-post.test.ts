// A session's post to a feed channel, sent to the Discord double over real HTTP through a proxy that
// holds back or loses Discord's answer: the message was made, the bot never heard so, and tries
// again. With the post's nonce enforced, the channel has the one message; without it, two.
import { REST } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { postNonce, restPoster } from '../../src/bot/feed.js';
import type { Reply } from '../../src/embeds/index.js';
import { startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.feed-post-token-abcdefghijklmnopqrs';
const reply: Reply = { content: '', embeds: [{ title: 'Ember#4471 played 3 matches' }], components: [], ephemeral: false };

let double: DiscordDouble;
let proxy: FaultProxy;
/** Discord's REST through the proxy, giving up on an answer after 300 ms (and sending it again, as discord.js does). */
let rest: REST;
beforeAll(async () => {
  double = await startDiscordDouble({ token: TOKEN });
  proxy = await startFaultProxy(new URL(double.apiUrl).origin);
  rest = new REST({ api: `${proxy.url}/api`, timeout: 300 }).setToken(TOKEN);
});
afterAll(async () => {
  await proxy.close();
  await double.close();
});

describe('a feed post whose answer never reaches the bot', () => {
  it('is one message when the answer came too late and discord.js sent the post again', async () => {
    const channel = '1180000000000000781';
    proxy.setFault('late-answer', 800, 1);
    const r = await restPoster(rest).post(channel, reply, { nonce: postNonce('g1|u1|title_c|pc_store_c|Ember#4471|p:0-1') });
    expect(r).toEqual({ ok: true });
    expect(proxy.requests.filter((u) => u.endsWith(`/channels/${channel}/messages`))).toHaveLength(2);
    expect(double.channelMessages(channel)).toHaveLength(1);
  });

  it('is one message when the connection was lost with the answer and the poster tried once more', async () => {
    const channel = '1180000000000000782';
    proxy.setFault('lost-answer', 0, 1);
    const r = await restPoster(rest, 50).post(channel, reply, { nonce: postNonce('g1|u1|title_c|pc_store_c|Ember#4471|p:1-2') });
    expect(r).toEqual({ ok: true });
    expect(proxy.requests.filter((u) => u.endsWith(`/channels/${channel}/messages`))).toHaveLength(2);
    expect(double.channelMessages(channel)).toHaveLength(1);
  });

  it('is two messages without a nonce (the channel check of /track), which is why the feed sends one', async () => {
    const channel = '1180000000000000783';
    proxy.setFault('late-answer', 800, 1);
    expect(await restPoster(rest).post(channel, reply)).toEqual({ ok: true });
    expect(double.channelMessages(channel)).toHaveLength(2);
  });

  it('is not tried again by the poster when Discord answered with a refusal', async () => {
    const channel = '1180000000000000784';
    double.setChannelError(channel, 50013);
    const r = await restPoster(rest, 50).post(channel, reply, { nonce: postNonce('g1|u1|title_c|pc_store_c|Ember#4471|p:2-3') });
    expect(r).toMatchObject({ ok: false, code: 50013 });
    expect(proxy.requests.filter((u) => u.endsWith(`/channels/${channel}/messages`))).toHaveLength(1);
  });
});

describe('a post’s nonce', () => {
  it('is the same for every try of one post, another for another server, and fits Discord’s 25 characters', () => {
    const a = postNonce('g1|u1|title_c|pc_store_c|Ember#4471|p:0-1');
    expect(a).toBe(postNonce('g1|u1|title_c|pc_store_c|Ember#4471|p:0-1'));
    expect(a).not.toBe(postNonce('g2|u1|title_c|pc_store_c|Ember#4471|p:0-1'));
    expect(a).toHaveLength(25);
  });
});
