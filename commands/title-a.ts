// /stats title_a: its subcommands, options and handlers, derived from the catalog.
import { titleCommand } from './title-command.js';

export const titleA = titleCommand('title_a');
