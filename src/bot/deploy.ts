// `npm run deploy-commands`: registers the commands with Discord, globally (may take up to an hour
// to show everywhere) or in the guild DISCORD_GUILD_ID names (at once).
import { REST, Routes, type RESTGetAPICurrentUserResult } from 'discord.js';

import { commands } from '../../commands/index.js';
import { configOrExit, exitWith } from '../cli.js';
import { loadBotConfig, loadDotEnv } from '../config.js';

async function main(): Promise<void> {
  configOrExit(() => loadDotEnv());
  const config = configOrExit(loadBotConfig);
  const rest = new REST({ api: config.DISCORD_API_URL }).setToken(config.DISCORD_TOKEN);
  const body = commands.map((c) => c.data);
  try {
    const applicationId = config.DISCORD_APPLICATION_ID ?? ((await rest.get(Routes.currentApplication())) as RESTGetAPICurrentUserResult).id;
    const route = config.DISCORD_GUILD_ID ? Routes.applicationGuildCommands(applicationId, config.DISCORD_GUILD_ID) : Routes.applicationCommands(applicationId);
    const registered = (await rest.put(route, { body })) as unknown[];
    process.stdout.write(
      `Registered ${registered.length} commands (${commands.map((c) => `/${c.data.name}`).join(', ')}) ` +
        `${config.DISCORD_GUILD_ID ? `in guild ${config.DISCORD_GUILD_ID}` : 'globally'} for application ${applicationId}.\n`,
    );
  } catch (e) {
    exitWith(`Could not register the commands: ${(e as Error).message.split(config.DISCORD_TOKEN).join('[redacted]')}`, 1);
  }
}

await main();
