// /stats title_b: its subcommands, options and handlers, derived from the catalog.
import { titleCommand } from './title-command.js';

export const titleB = titleCommand('title_b');
