// Where the commands can be used: in servers that installed the bot, and by anyone who installed it
// for themselves (a user install), in servers, the bot's DMs and group DMs alike. Commands that
// need a server (`/leaderboard`) are registered everywhere too and answer elsewhere, privately,
// that they need one: a command that is simply missing in a DM tells the user nothing.
import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';

export const INTEGRATION_TYPES = [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall] as const;
export const CONTEXTS = [InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel] as const;

/** A top-level command usable under both installs, in every context. */
export function installableCommand(): SlashCommandBuilder {
  return new SlashCommandBuilder().setIntegrationTypes(...INTEGRATION_TYPES).setContexts(...CONTEXTS);
}
