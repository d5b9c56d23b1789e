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
