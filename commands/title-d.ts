// /stats title_d: its subcommands, options and handlers, derived from the catalog.
import { titleCommand } from './title-command.js';

export const titleD = titleCommand('title_d');
