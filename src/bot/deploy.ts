// `npm run deploy-commands`: registers the commands with Discord, globally (may take up to an hour
// to show everywhere) or in the guild DISCORD_GUILD_ID names (at once); `-- --remove` takes them
// away from there instead (the guild's copies after a move to global commands, which would
// otherwise show every command twice in that guild). With LINKED_ROLES_TITLE it also registers the
// application's role connection metadata (Linked Roles) for that title.
import { parseArgs } from 'node:util';

import { DiscordAPIError, REST, Routes, type RESTGetCurrentApplicationResult } from 'discord.js';

import { commands } from '../../commands/index.js';
import { TITLES, TITLE_SLUGS, isTitle } from '../catalog/index.js';
import { roleConnectionRecords } from '../verify/linked-roles.js';
import { configOrExit, exitWith } from '../cli.js';
import { loadBotConfig, loadDotEnv, type BotConfig } from '../config.js';

const USAGE = `Usage: npm run deploy-commands [-- --remove]
  registers the commands in the guild DISCORD_GUILD_ID names, or globally when it is unset
  --remove  takes them away from there instead
  --help    prints this
Environment: DISCORD_TOKEN, DISCORD_APPLICATION_ID (read from Discord when unset), DISCORD_GUILD_ID,
  DISCORD_API_URL, LINKED_ROLES_TITLE (registers the Linked Roles metadata too; see .env.example).
Exits 0 when done, 1 when Discord refuses (the line names the setting to correct), 2 for a bad
argument or setting.`;

async function main(): Promise<void> {
  let values;
  try {
    values = parseArgs({ options: { remove: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }).values;
  } catch (e) {
    exitWith(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const remove = values.remove === true;
  configOrExit(() => loadDotEnv());
  const config = configOrExit(loadBotConfig);
  const rolesTitle = config.LINKED_ROLES_TITLE;
  if (rolesTitle !== undefined && !isTitle(rolesTitle)) exitWith(`Configuration: LINKED_ROLES_TITLE ${rolesTitle} is not a title (${TITLE_SLUGS.join(', ')})`);
  const rest = new REST({ api: config.DISCORD_API_URL }).setToken(config.DISCORD_TOKEN);
  const body = remove ? [] : commands.map((c) => c.data);
  const where = config.DISCORD_GUILD_ID ? `in guild ${config.DISCORD_GUILD_ID}` : 'globally';
  try {
    const applicationId = config.DISCORD_APPLICATION_ID ?? (await tokenApplication(rest));
    const route = config.DISCORD_GUILD_ID ? Routes.applicationGuildCommands(applicationId, config.DISCORD_GUILD_ID) : Routes.applicationCommands(applicationId);
    const registered = (await rest.put(route, { body })) as unknown[];
    process.stdout.write(
      remove
        ? `Removed the commands ${where} for application ${applicationId}.\n`
        : `Registered ${registered.length} commands (${commands.map((c) => `/${c.data.name}`).join(', ')}) ${where} for application ${applicationId}.\n`,
    );
    if (rolesTitle && !remove) {
      const records = roleConnectionRecords(rolesTitle);
      await rest.put(Routes.applicationRoleConnectionMetadata(applicationId), { body: records });
      process.stdout.write(
        `Registered the Linked Roles metadata of ${TITLES[rolesTitle].name} (${records.map((r) => r.key).join(', ')}) for application ${applicationId}.\n`,
      );
    }
  } catch (e) {
    const told = (await settingToCorrect(e, config, rest)) ?? (e as Error).message;
    exitWith(`Could not ${remove ? 'remove' : 'register'} the commands: ${told.split(config.DISCORD_TOKEN).join('[redacted]')}`, 1);
  }
}

async function tokenApplication(rest: REST): Promise<string> {
  return ((await rest.get(Routes.currentApplication())) as RESTGetCurrentApplicationResult).id;
}

/**
 * Discord's refusals name no setting ("401: Unauthorized", "Missing Access"): this says which one to
 * correct. Missing Access comes both for another application's id and for a guild the bot is not
 * in; with both settings given, the token's own application (one more request) tells them apart.
 */
async function settingToCorrect(e: unknown, config: BotConfig, rest: REST): Promise<string | undefined> {
  if (!(e instanceof DiscordAPIError)) return undefined;
  if (e.status === 401)
    return `Discord refused DISCORD_TOKEN (${e.message}): reset it in the developer portal (Bot > Reset Token) and put the new one in DISCORD_TOKEN`;
  const missingAccess = e.code === 50001;
  if (!missingAccess && e.code !== 10002 && e.status !== 404) return undefined;
  const { DISCORD_APPLICATION_ID: appId, DISCORD_GUILD_ID: guildId } = config;
  const guildLine = `the bot is not in guild ${guildId} (DISCORD_GUILD_ID; Discord: ${e.message}): invite it with the applications.commands scope (developer portal, OAuth2 > URL Generator), or correct DISCORD_GUILD_ID`;
  const appLine = (actual?: string) =>
    `DISCORD_APPLICATION_ID ${appId} does not belong to the token's application${actual ? `, ${actual}` : ''} (Discord: ${e.message}): leave it blank to read it from Discord`;
  if (appId === undefined) return missingAccess && guildId ? guildLine : undefined;
  const actual = await tokenApplication(rest).catch(() => undefined);
  if (actual !== undefined && actual !== appId) return appLine(actual);
  if (missingAccess && guildId) return actual === appId ? guildLine : `${appLine()}, or ${guildLine}`;
  // The token's application could not be read either (DISCORD_API_URL not Discord's?): Discord's own words.
  return undefined;
}

await main();
