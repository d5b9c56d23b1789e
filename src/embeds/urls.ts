// Discord refuses a whole message (50035) when one of its embed URLs is not one it accepts: a
// player's avatar from a dataset or another service must never cost the player their reply.

/** `value` when it is an http(s) URL without spaces (what Discord takes in an embed), else undefined. */
export function webUrl(value: string | null | undefined): string | undefined {
  if (
    typeof value !== 'string' ||
    value.length > 2_048 ||
    /\s/.test(value) ||
    [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) ||
    !URL.canParse(value)
  )
    return undefined;
  const { protocol, hostname } = new URL(value);
  return (protocol === 'https:' || protocol === 'http:') && hostname.length > 0 ? value : undefined;
}
