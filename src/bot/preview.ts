// `npm run preview -- "/stats title_c profile platform:console_a player:Nova"`: the bot's handlers
// without Discord. Same commands, same lookups (the embedded service unless LOOKUP_BASE_URL, cached
// where the bot caches them); links, members and /track settings in a file of the preview's own
// (PREVIEW_DB), never the bot's LINKS_DB or Redis, which the real bot would then act on. The reply
// is printed as text. `--autocomplete` shows the choices for the last option.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { pino } from 'pino';

import { findCommand } from '../../commands/index.js';
import { WORKER_START_MS, createCardRenderer } from '../cards/index.js';
import { configOrExit, exitWith } from '../cli.js';
import { openLookupsOrExit } from '../compose.js';
import { loadDotEnv, loadPreviewConfig } from '../config.js';
import { CommandLineError, parseCommandLine } from './command-line.js';
import { renderText } from './render-text.js';
import { createBotStores } from './stores.js';
import { messageOf } from './webhook-answer.js';

const USAGE = `Usage: npm run preview -- [--autocomplete] [--json] [--card <file.png>] [--user <id>] [--server <id>] [--admin] [--locale <code>] [--server-locale <code>] "<command>"
  such as: npm run preview -- "/stats title_c profile platform:console_a player:Nova"
  Runs a command the way the bot would and prints the reply. Values with spaces: player:"Ashen Knight".
  --help          print this
  --autocomplete  print the choices Discord would offer for the last option typed
  --json          print the reply (or the choices) as JSON, as the bot would send it, with the command line
  --card <file>   write the picture card the reply attaches (profile, sessions, compare) to this PNG file
  --user <id>     the Discord user to act as (for /link and linked accounts); default preview-user
  --server <id>   the Discord server the command is used in (for /leaderboard, /track); default preview-server
  --admin         act as a member with Manage Server (for /track channel and /track off)
  --locale <code> the reader's Discord locale (de, fr, es-ES, es-419, pt-BR; others read English); default en-US
  --server-locale <code> the server's language (what /track channel keeps for the feed's posts); default en-US
  Links, members and /track settings are kept between runs in PREVIEW_DB (default .data/preview.sqlite), never in the bot's LINKS_DB or Redis.`;

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        autocomplete: { type: 'boolean' },
        json: { type: 'boolean' },
        card: { type: 'string' },
        user: { type: 'string', default: 'preview-user' },
        server: { type: 'string', default: 'preview-server' },
        locale: { type: 'string', default: 'en-US' },
        'server-locale': { type: 'string', default: 'en-US' },
        admin: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    exitWith(`${(e as Error).message}\n${USAGE}`);
  }
  const line = parsed.positionals.join(' ');
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!line) exitWith(USAGE);
  let input;
  try {
    input = {
      ...parseCommandLine(line, parsed.values.user, { complete: !parsed.values.autocomplete }),
      guildId: parsed.values.server,
      locale: parsed.values.locale,
      guildLocale: parsed.values['server-locale'],
      canManageServer: parsed.values.admin ?? false,
    };
  } catch (e) {
    if (e instanceof CommandLineError) exitWith(`${e.message}\n${USAGE}`);
    throw e;
  }
  configOrExit(() => loadDotEnv());
  const config = configOrExit(loadPreviewConfig);
  const logger = pino({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL }, pino.destination(2));
  const lookups = await openLookupsOrExit(config, logger);
  // No redisUrl: the file, whatever CACHE_URL says (the lookups above still cache in Redis, which is harmless).
  let stores;
  try {
    stores = await createBotStores({ namespace: config.CACHE_NAMESPACE, linksPath: config.PREVIEW_DB, linksSetting: 'PREVIEW_DB', logger });
  } catch (e) {
    await lookups.close();
    exitWith(`Could not start: ${(e as Error).message}`, 1);
  }
  // A preview answers no interaction, so no answer window bounds its card: it waits as long as a
  // card worker may take to start (loading fonts on a busy machine can take longer than an answer may).
  const cards = parsed.values.card ? createCardRenderer({ deadlineMs: WORKER_START_MS }) : undefined;
  const deps = {
    lookup: lookups.client,
    links: stores.links,
    views: stores.views,
    snapshots: stores.snapshots,
    history: stores.history,
    members: stores.members,
    feed: stores.feed,
    servers: stores.servers,
    logger,
    ...(cards ? { cards } : {}),
  };
  try {
    const command = findCommand(input.name);
    if (parsed.values.autocomplete) {
      if (!input.last || !command?.autocomplete) exitWith('--autocomplete needs a command with an option typed last, e.g. player:No');
      const choices = await command.autocomplete({ ...input, focused: input.last }, deps);
      if (parsed.values.json)
        process.stdout.write(`${JSON.stringify({ command: line, autocomplete: { option: input.last.name, typed: input.last.value, choices } }, null, 2)}\n`);
      else process.stdout.write(choices.length > 0 ? `${choices.map((c) => `${c.name}  →  ${c.value}`).join('\n')}\n` : '(no choices)\n');
    } else {
      const reply = await command!.execute(input, deps);
      const { files } = reply;
      // Discord's message JSON as the bot sends it (flags 64 for a private reply, no mentions); the
      // bytes go to --card, the JSON names the files the message uploads.
      const sent = messageOf(reply, true).body;
      const shown = files ? { ...sent, files: files.map((f) => ({ name: f.name, bytes: f.data.length })) } : sent;
      process.stdout.write(parsed.values.json ? `${JSON.stringify({ command: line, reply: shown }, null, 2)}\n` : `${renderText(reply)}\n`);
      if (parsed.values.card) {
        const card = files?.[0];
        if (!card) exitWith(`This reply has no card (cards come with profile, sessions and compare replies).`, 1);
        writeFileSync(parsed.values.card, card.data);
        process.stderr.write(`card written to ${parsed.values.card} (${card.data.length} bytes)\n`);
      }
    }
  } finally {
    await lookups.close();
    await stores.close();
    await cards?.close();
  }
}

await main();
