// `npm run deploy-commands`: registers the commands with Discord, globally (may take up to an hour
// to show everywhere) or in the guild DISCORD_GUILD_ID names (at once); `-- --remove` takes them
// away from there instead (the guild's copies after a move to global commands, which would
// otherwise show every command twice in that guild).
import { parseArgs } from 'node:util';

import { REST, Routes, type RESTGetAPICurrentUserResult } from 'discord.js';

import { commands } from '../../commands/index.js';
import { configOrExit, exitWith } from '../cli.js';
import { loadBotConfig, loadDotEnv } from '../config.js';

const USAGE = `Usage: npm run deploy-commands [-- --remove]
  registers the commands in the guild DISCORD_GUILD_ID names, or globally when it is unset;
  --remove takes them away from there instead`;

async function main(): Promise<void> {
  let remove = false;
  try {
    remove = parseArgs({ options: { remove: { type: 'boolean' } } }).values.remove === true;
  } catch (e) {
    exitWith(`${(e as Error).message}\n${USAGE}`);
  }
  configOrExit(() => loadDotEnv());
  const config = configOrExit(loadBotConfig);
  const rest = new REST({ api: config.DISCORD_API_URL }).setToken(config.DISCORD_TOKEN);
  const body = remove ? [] : commands.map((c) => c.data);
  const where = config.DISCORD_GUILD_ID ? `in guild ${config.DISCORD_GUILD_ID}` : 'globally';
  try {
    const applicationId = config.DISCORD_APPLICATION_ID ?? ((await rest.get(Routes.currentApplication())) as RESTGetAPICurrentUserResult).id;
    const route = config.DISCORD_GUILD_ID ? Routes.applicationGuildCommands(applicationId, config.DISCORD_GUILD_ID) : Routes.applicationCommands(applicationId);
    const registered = (await rest.put(route, { body })) as unknown[];
    process.stdout.write(
      remove
        ? `Removed the commands ${where} for application ${applicationId}.\n`
        : `Registered ${registered.length} commands (${commands.map((c) => `/${c.data.name}`).join(', ')}) ${where} for application ${applicationId}.\n`,
    );
  } catch (e) {
    exitWith(`Could not ${remove ? 'remove' : 'register'} the commands: ${(e as Error).message.split(config.DISCORD_TOKEN).join('[redacted]')}`, 1);
  }
}

await main();
