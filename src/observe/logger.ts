// The bot's logger: JSON lines (pino) on standard output, with the net under the rule that no log
// call passes a secret.
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

/** Secrets this short are not searched for: they would also match ordinary words of a line. */
const SHORTEST_CENSORED = 8;

/**
 * A finished log line with each secret in it replaced by [redacted]: as it is, as a JSON line writes
 * it (a quote or a backslash in it escaped) and as a URL carries it (percent-encoded, as a password
 * stands in a connection URL).
 */
export function censorSecrets(secrets: readonly (string | undefined)[]): (line: string) => string {
  const given = secrets.filter((s): s is string => s !== undefined && s.length >= SHORTEST_CENSORED);
  const kept = [...new Set(given.flatMap((s) => [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)]))];
  return (line) => {
    for (const secret of kept) if (line.includes(secret)) line = line.split(secret).join('[redacted]');
    return line;
  };
}

/**
 * `secrets`: the values no line may show (the bot token, API keys, passwords in URLs), taken out of
 * each finished line wherever they stand (a message, a URL) for one string search each. A field
 * named `token` or `headers.authorization` at a line's top level is censored too. Paths with a
 * wildcard (`*.token`) are not used: pino then clones and censors every value of every line, which
 * was a ninth of what the bot allocated during a burst of answers.
 */
export function createLogger(level: Level | 'silent', secrets: readonly (string | undefined)[], destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: ['token', 'headers.authorization'], censor: '[redacted]' }, hooks: { streamWrite: censorSecrets(secrets) } };
  return destination ? pino(options, destination) : pino(options);
}

/** The password (or lone user, as in redis://secret@host) of a URL, if it has one. */
export function passwordOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return decodeURIComponent(u.password || u.username) || undefined;
  } catch {
    return undefined;
  }
}

/** A URL for a log line: a user or password in it (https://user:secret@host) never reaches the log. */
export function withoutCredentials(url: string): string {
  const u = new URL(url);
  if (u.username || u.password) {
    u.username = '[redacted]';
    u.password = '';
  }
  return u.toString();
}
