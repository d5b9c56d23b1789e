// /stats title_c: its subcommands, options and handlers, derived from the catalog.
import { titleCommand } from './title-command.js';

export const titleC = titleCommand('title_c');
