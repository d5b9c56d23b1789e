// Discord's interaction payload read by hand (src/bot/interaction-payload.ts): what both transports
// hand the router, and what they refuse.
import { describe, expect, it } from 'vitest';

import { actionOf, createdAt, readEnvelope } from '../../src/bot/interaction-payload.js';

const ID = '1180000000000000001';
const APP = '1180000000000000002';
const USER = '1180000000000000003';
const GUILD = '1180000000000000004';

const command = (options: unknown, extra: Record<string, unknown> = {}) => ({
  id: ID,
  application_id: APP,
  type: 2,
  token: 'tok',
  guild_id: GUILD,
  member: { user: { id: USER, username: 'a' }, permissions: String(1n << 5n), nick: null },
  locale: 'de',
  data: { id: '9', name: 'stats', type: 1, options },
  ...extra,
});

const statsOptions = [
  {
    name: 'title_c',
    type: 2,
    options: [
      {
        name: 'profile',
        type: 1,
        options: [
          { name: 'player', type: 3, value: 'Nova' },
          { name: 'card', type: 5, value: false },
        ],
      },
    ],
  },
];

describe('the interaction payload', () => {
  it('reads a command: group, subcommand, leaf options, who, where, language, Manage Server', () => {
    const raw = readEnvelope(command(statsOptions));
    expect(raw).toBeDefined();
    expect(actionOf(raw!)).toEqual({
      kind: 'command',
      input: {
        name: 'stats',
        group: 'title_c',
        subcommand: 'profile',
        options: { player: 'Nova', card: false },
        userId: USER,
        guildId: GUILD,
        locale: 'de',
        canManageServer: true,
      },
    });
  });

  it('reads the server’s language beside the reader’s, and leaves out one it cannot read rather than refusing the command', () => {
    expect(actionOf(readEnvelope(command(statsOptions, { guild_locale: 'pt-BR' }))!)).toMatchObject({
      kind: 'command',
      input: { locale: 'de', guildLocale: 'pt-BR' },
    });
    const odd = actionOf(readEnvelope(command(statsOptions, { guild_locale: 'x'.repeat(21) }))!);
    expect(odd).toMatchObject({ kind: 'command', input: { locale: 'de' } });
    expect(odd).not.toHaveProperty('input.guildLocale', expect.anything());
  });

  it('reads the focused option of an autocomplete, and a DM user without a member', () => {
    const payload = {
      ...command([{ name: 'title_b', type: 2, options: [{ name: 'segments', type: 1, options: [{ name: 'platform', type: 3, value: 'c', focused: true }] }] }]),
      type: 4,
      member: undefined,
      guild_id: null,
      user: { id: USER },
    };
    const action = actionOf(readEnvelope(payload)!);
    expect(action).toMatchObject({
      kind: 'autocomplete',
      input: { group: 'title_b', subcommand: 'segments', focused: { name: 'platform', value: 'c' }, guildId: null, canManageServer: false, userId: USER },
    });
  });

  it('marks a focused integer option numeric: its choices must be numbers', () => {
    const payload = {
      ...command([{ name: 'title_a', type: 2, options: [{ name: 'segments', type: 1, options: [{ name: 'season', type: 4, value: '3', focused: true }] }] }]),
      type: 4,
      user: { id: USER },
    };
    expect(actionOf(readEnvelope(payload)!)).toMatchObject({ kind: 'autocomplete', input: { focused: { name: 'season', value: '3', numeric: true } } });
  });

  it('reads a select menu’s picks and a button (no picks)', () => {
    const base = { id: ID, application_id: APP, token: 't', type: 3, user: { id: USER }, locale: 'fr' };
    expect(actionOf(readEnvelope({ ...base, data: { custom_id: 'open:abc', component_type: 3, values: ['map'] } })!)).toEqual({
      kind: 'component',
      customId: 'open:abc',
      values: ['map'],
      userId: USER,
      locale: 'fr',
    });
    expect(actionOf(readEnvelope({ ...base, data: { custom_id: 'go:abc:matches', component_type: 2 } })!)).toEqual({
      kind: 'component',
      customId: 'go:abc:matches',
      values: undefined,
      userId: USER,
      locale: 'fr',
    });
  });

  it('reads who ran the command that made a pressed message (interaction_metadata, or the older interaction), and takes a message that does not say', () => {
    const OWNER = '1180000000000000005';
    const base = { id: ID, application_id: APP, token: 't', type: 3, user: { id: USER }, data: { custom_id: 'pg:abc:1', component_type: 2 } };
    const ownerOf = (message: unknown) => (actionOf(readEnvelope({ ...base, message })!) as { messageOwnerId?: string }).messageOwnerId;
    expect(ownerOf({ id: '1', interaction_metadata: { id: '2', type: 2, user: { id: OWNER, username: 'o' } } })).toBe(OWNER);
    expect(ownerOf({ id: '1', interaction: { id: '2', type: 2, name: 'stats', user: { id: OWNER } } })).toBe(OWNER);
    for (const unknown of [undefined, null, { id: '1' }, { interaction_metadata: { user: { id: 'nope' } } }, { interaction_metadata: 'x' }, []])
      expect(ownerOf(unknown)).toBeUndefined();
  });

  it('refuses what is not an interaction envelope', () => {
    for (const bad of [
      null,
      [],
      'x',
      { ...command([]), id: 'abc' },
      { ...command([]), application_id: undefined },
      { ...command([]), type: 2.5 },
      { ...command([]), token: '' },
      { ...command([]), member: { user: {} } },
      { ...command([]), member: { user: { id: USER }, permissions: 'all' } },
      { ...command([]), locale: 'x'.repeat(21) },
    ])
      expect(readEnvelope(bad)).toBeUndefined();
  });

  it('says why command or component data cannot be read', () => {
    const reasons = [
      command({ not: 'a list' }),
      command([{ name: 'player', type: 3, value: { an: 'object' } }]),
      command([{ type: 3, value: 'x' }]),
      command([
        {
          name: 'a',
          type: 2,
          options: [
            { name: 'b', type: 1, options: [{ name: 'c', type: 1, options: [{ name: 'd', type: 1, options: [{ name: 'e', type: 3, value: 'deep' }] }] }] },
          ],
        },
      ]),
      { ...command([]), data: { name: 'x'.repeat(33) } },
      { ...command([]), type: 3, data: { custom_id: 'a', component_type: 3, values: [1] } },
      { ...command([]), type: 9 },
      { ...command([]), member: undefined },
    ].map((p) => actionOf(readEnvelope(p)!));
    expect(reasons).toEqual([
      'malformed command data',
      'malformed command data',
      'malformed command data',
      'malformed command data',
      'malformed command data',
      'malformed component data',
      'interaction type 9 is not answered by this bot',
      'no user',
    ]);
  });

  it('tells when Discord made the interaction from its id', () => {
    // Discord's documented example: 175928847299117063 was made at 2016-04-30T11:18:25.796Z.
    expect(createdAt('175928847299117063')).toBe(Date.parse('2016-04-30T11:18:25.796Z'));
  });
});
