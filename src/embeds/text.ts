// Plain text helpers with no dependency but the catalog's, for modules that run where discord.js is
// not wanted: the card worker lays its cards out through format.ts, and discord.js in that import
// graph (hundreds of modules) costs the worker tens of MB of resident memory.

export { clip, withoutControls } from '../catalog/text.js';

/**
 * Text with every mention broken (`@everyone`, `@here`, `<@123>`): a zero-width space after each @
 * keeps it text even if mentions were parsed. Markdown escapes and code spans do not stop mentions.
 */
export const unmentioned = (text: string): string => text.replace(/@/g, '@\u200b');
