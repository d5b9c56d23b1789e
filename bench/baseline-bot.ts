// The baseline of `npm run bench`: the plainest stats bot a newcomer would write from the
// discord.js guide. Defer, fetch, edit; no cache, no single flight, default caches, the Guilds
// intent. It answers the same interactions as the real bot so that every figure has a ratio.
// Not part of the product: it exists to be measured against.
import { Client, EmbedBuilder, Events, GatewayIntentBits, type Interaction } from 'discord.js';

const token = process.env.DISCORD_TOKEN ?? '';
const api = process.env.DISCORD_API_URL ?? 'https://discord.com/api';
const base = process.env.LOOKUP_BASE_URL ?? 'http://127.0.0.1:8787';

const PLATFORMS = ['pc_store_a', 'pc_store_b', 'pc_store_c', 'console_a', 'console_b'];
const SEGMENTS: Record<string, string[]> = {
  title_a: ['overview', 'playlist', 'gamemode', 'map', 'weapon'],
  title_b: ['legend'],
  title_c: ['hero'],
  title_d: ['map', 'weapon'],
};

interface Stat {
  displayName: string;
  displayValue: string;
}
interface ProfileBody {
  data?: { platformInfo: { platformUserHandle: string }; segments: { stats: Record<string, Stat> }[] };
  errors?: { message: string }[];
}
interface SearchBody {
  data?: { platformUserHandle: string; platformUserIdentifier: string }[];
}

const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api } });

async function handle(interaction: Interaction): Promise<void> {
  try {
    if (interaction.isAutocomplete()) {
      const focused = interaction.options.getFocused(true);
      const title = interaction.options.getSubcommandGroup() ?? '';
      if (focused.name === 'platform') {
        await interaction.respond(PLATFORMS.filter((p) => p.includes(focused.value)).map((p) => ({ name: p, value: p })));
      } else if (focused.name === 'segment') {
        await interaction.respond((SEGMENTS[title] ?? []).filter((s) => s.includes(focused.value)).map((s) => ({ name: s, value: s })));
      } else {
        const platform = interaction.options.getString('platform') ?? '';
        const res = await fetch(`${base}/v2/${title}/standard/search?platform=${platform}&query=${encodeURIComponent(focused.value)}`);
        const body = (await res.json()) as SearchBody;
        await interaction.respond((body.data ?? []).slice(0, 25).map((p) => ({ name: p.platformUserHandle, value: p.platformUserIdentifier })));
      }
      return;
    }
    if (!interaction.isChatInputCommand()) return;
    await interaction.deferReply();
    const title = interaction.options.getSubcommandGroup() ?? '';
    const platform = interaction.options.getString('platform') ?? '';
    const player = interaction.options.getString('player') ?? '';
    const res = await fetch(`${base}/v2/${title}/standard/profile/${platform}/${encodeURIComponent(player)}`);
    const body = (await res.json()) as ProfileBody;
    if (!body.data) {
      await interaction.editReply(body.errors?.[0]?.message ?? 'Something went wrong');
      return;
    }
    const stats = Object.values(body.data.segments[0]?.stats ?? {}).slice(0, 12);
    const embed = new EmbedBuilder()
      .setTitle(body.data.platformInfo.platformUserHandle)
      .addFields(stats.map((s) => ({ name: s.displayName, value: s.displayValue, inline: true })));
    await interaction.editReply({ embeds: [embed] });
  } catch (error) {
    console.error(error);
  }
}

client.on(Events.InteractionCreate, (interaction) => void handle(interaction));

client.once(Events.ClientReady, () => console.log('baseline ready'));
void client.login(token);
process.once('SIGTERM', () => void client.destroy().then(() => process.exit(0)));
