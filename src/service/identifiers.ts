// How the service reads player identifiers: case-insensitive, `#` arriving as `%23`, anything odd
// refused with a clear reason instead of reaching the store.

export const MAX_IDENTIFIER_LENGTH = 199;

/**
 * Whether text holds a C0 or C1 control character: the one check for identifiers and for every
 * text field of a dataset line (PostgreSQL refuses a NUL in text, and none belongs in a name).
 */
export function hasControlCharacters(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f-\u009f]/.test(value);
}

/** The key a player is stored and looked up under: NFC, lower case. */
export function normalizeIdentifier(value: string): string {
  return value.normalize('NFC').toLowerCase();
}

/** The problem of an identifier or match id with a slash in it. */
export const SLASH = 'contains a slash';

/** Why an identifier can't be one, or null when it is fine. */
export function identifierProblem(value: string): string | null {
  if (value.trim().length === 0) return 'is empty';
  if (value.length > MAX_IDENTIFIER_LENGTH) return `is longer than ${MAX_IDENTIFIER_LENGTH} characters`;
  if (hasControlCharacters(value)) return 'contains control characters';
  if (value.includes('/') || value.includes('\\')) return SLASH;
  if (value.includes('..')) return "contains '..'";
  return null;
}

/** Why a match id can't be one, or null when it is fine. */
export function matchIdProblem(value: string): string | null {
  if (value.length === 0) return 'is empty';
  if (value.length > 100) return 'is longer than 100 characters';
  if (/\s/.test(value) || hasControlCharacters(value)) return 'contains spaces or control characters';
  if (value.includes('/') || value.includes('\\')) return SLASH;
  return null;
}

/** Pages under a community profile that people copy the address of; the profile is what they mean. */
const COMMUNITY_SUBPAGES = [
  'home',
  'games',
  'friends',
  'groups',
  'inventory',
  'screenshots',
  'videos',
  'recommended',
  'reviews',
  'badges',
  'wishlist',
  'myworkshopfiles',
];

const COMMUNITY_URL = new RegExp(
  `^(?:https?://)?[a-z0-9.-]+\\.[a-z]{2,}/(profiles|id)/([A-Za-z0-9_-]{2,64})(?:/(?:${COMMUNITY_SUBPAGES.join('|')}))?/?(?:[?#].*)?$`,
  'i',
);

/**
 * Reads a pc_store_a community profile URL (`https://<host>/profiles/<id>` or `.../id/<vanity>`),
 * with or without scheme and trailing slash, as copied from a browser: one known subpage
 * (`.../home`), a query string and a fragment are dropped. Only the key reaches the store; a
 * control character anywhere, or a URL longer than an identifier may be, is no URL.
 */
export function parseCommunityUrl(value: string): { id: string } | { vanity: string } | null {
  if (value.length > MAX_IDENTIFIER_LENGTH || hasControlCharacters(value)) return null;
  const match = COMMUNITY_URL.exec(value.trim());
  if (!match) return null;
  const [, kind, key] = match;
  if (!key) return null;
  return kind?.toLowerCase() === 'profiles' ? { id: key } : { vanity: key };
}
