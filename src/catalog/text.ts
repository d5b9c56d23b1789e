// Text as both halves show it: the service quotes what was asked in its errors, the bot in its
// replies, and neither may cut a character in two.

/** Cuts text to `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  // Never between the two halves of a surrogate pair (an emoji): Discord refuses a lone half, and a
  // strict JSON reader an answer with one.
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  // Nor after a space: `Team…`, not `Team …`.
  return `${text.slice(0, end).trimEnd()}…`;
}

/**
 * The one rule for text of a player's (a name, a handle, what was typed) wherever it is shown: in
 * embeds, select menus, buttons, autocomplete choices, channel posts, cards and web pages. No
 * bidirectional embedding, override or isolate controls (U+202A to U+202E, U+2066 to U+2069): in a
 * name one reverses the rest of the reader's line, and a menu's label could read as another
 * player's name. No control characters either (a line break in a one-line label). Names written
 * right to left need none of them.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it takes out
export const withoutControls = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
