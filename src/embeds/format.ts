// How numbers, places and times read in a reply: in the reader's locale, places worded honestly,
// times as Discord timestamps (`<t:…:R>`), which every reader's client keeps current.
import {
  FIGURE_INFO,
  PLATFORMS,
  PLATFORM_SLUGS,
  QUEUES,
  TITLES,
  TITLE_SLUGS,
  isDisplayType,
  parseAnswerDate,
  percentOnHundred,
  type DisplayType,
  type Figure,
  type PlatformSlug,
  type Queue,
  type TitleSlug,
} from '../catalog/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { Stat } from '../lookup/schemas.js';
import { say, type TextKey } from '../locales/index.js';
import { clip, unmentioned, withoutControls } from './text.js';

/** One colour per title, so that a glance tells which game a reply is about. */
export const TITLE_COLORS: Record<TitleSlug, number> = {
  title_a: 0xe67e22,
  title_b: 0xc0392b,
  title_c: 0xf1c40f,
  title_d: 0x2980b9,
};

export const titleName = (title: TitleSlug): string => TITLES[title].name;
/** A platform's name for a slug; an answer without a slug gives an empty name. */
export const platformName = (platform: string | null): string => (platform === null ? '' : (PLATFORMS[platform as PlatformSlug]?.name ?? platform));

/**
 * Text for inside a code span: Discord shows code verbatim (no escapes), so backticks are dropped
 * instead; a code span does not stop a mention, so mentions are broken.
 */
export const code = (text: string): string => `\`${unmentioned(withoutControls(text).replace(/`/g, "'")) || ' '}\``;
/** Characters of what a user typed that a notice quotes back: the notice's point stays in sight on a phone. */
export const TYPED_SHOWN = 40;
/** What a user typed, quoted back in a notice: as code (no markdown, no mention), and clipped (what they typed may be long). */
export const typedCode = (text: string): string => code(clip(text, TYPED_SHOWN));

/** Text kept on one line: its spaces made no-break spaces, so that a phone wraps a line between such texts, not inside one. */
export const unbroken = (text: string): string => text.replace(/ /g, '\u00a0');
/**
 * The parts a line has (empty ones left out) joined by bullets, each bullet held to the part before
 * it: a phone wraps after a bullet, never before one (lines that began with "· K/D 4.25").
 */
export const bulleted = (parts: readonly (string | null | undefined | false)[]): string => parts.filter(Boolean).join('\u00a0· ');
/** "PC Store A (`pc_store_a`)": a name players know and what to type, kept together on a phone ("PC Store / A" broke there). */
export const namedSlug = (name: string, slug: string): string => `${unbroken(name)}\u00a0(${code(slug)})`;

/** "PC Store C (`pc_store_c`), Console A (`console_a`)": the name a player knows, and what to type. */
export const platformList = (platforms: readonly PlatformSlug[]): string => platforms.map((p) => namedSlug(PLATFORMS[p].name, p)).join(', ');

/** The platform a typed value means, by its slug or its name in any case (`PC store a`); undefined for what is none. */
export const platformOf = (typed: string): PlatformSlug | undefined => {
  const wanted = typed.trim().toLowerCase();
  return PLATFORM_SLUGS.find((p) => p === wanted || PLATFORMS[p].name.toLowerCase() === wanted);
};
/** A typed platform as a notice names it: a known one by the name players know (not its slug), anything else quoted back as typed. */
export const typedPlatform = (typed: string): string => {
  const known = platformOf(typed);
  return known ? unbroken(PLATFORMS[known].name) : typedCode(typed);
};

/** "Title A (`title_a`), Title B (`title_b`)": as `platformList`, for the titles. */
export const titleList = (): string => TITLE_SLUGS.map((t) => namedSlug(TITLES[t].name, t)).join(', ');

// ---------------------------------------------------------------------------------------------
// Numbers, in the reader's locale (`interaction.locale`: `de` writes 1.652)

const formats = new Map<string, Intl.NumberFormat>();
/** Intl number formats are costly to build; a few locales times a few styles, kept. */
function numberFormat(
  locale: string | undefined,
  style: 'integer' | 'precision2' | 'tenths' | 'percent' | 'percentWhole' | 'compact' | 'day',
): Intl.NumberFormat {
  const key = `${locale ?? 'en-US'}|${style}`;
  let f = formats.get(key);
  if (!f) {
    const options: Intl.NumberFormatOptions =
      style === 'integer'
        ? { maximumFractionDigits: 0 }
        : style === 'precision2'
          ? { minimumFractionDigits: 2, maximumFractionDigits: 2 }
          : style === 'tenths'
            ? { minimumFractionDigits: 1, maximumFractionDigits: 1 }
            : style === 'percent'
              ? { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 }
              : style === 'percentWhole'
                ? { style: 'percent', maximumFractionDigits: 0 }
                : style === 'day'
                  ? { style: 'unit', unit: 'day', unitDisplay: 'narrow' }
                  : { notation: 'compact', maximumFractionDigits: 1 };
    try {
      f = new Intl.NumberFormat(locale ?? 'en-US', options);
    } catch {
      f = new Intl.NumberFormat('en-US', options);
    }
    if (formats.size < 256) formats.set(key, f);
  }
  return f;
}

/**
 * `12261.17` -> `12.3K`, `1234` -> `1.2K` (en), `12,3 k` (fr). Where a locale does not shorten
 * thousands (`de` would write `12.261,2`), the whole number instead: `12.261`.
 */
export function compactNumber(value: number, locale?: string): string {
  const short = numberFormat(locale, 'compact').format(value);
  return /\p{L}/u.test(short) ? short : numberFormat(locale, 'integer').format(value);
}

/** "3h 5m", "12m", "2d 4h" (days in the reader's abbreviation: `2j 4h`): how long, to the minute. */
export function duration(seconds: number, locale?: string): string {
  const m = Math.max(0, Math.round(seconds / 60));
  const d = Math.floor(m / 1_440);
  const h = Math.floor((m % 1_440) / 60);
  const min = m % 60;
  // Days as the reader abbreviates them (`2d`, `2 T`, `2j`, `2 dias`), held together.
  if (d > 0) return `${unbroken(numberFormat(locale, 'day').format(d))} ${h}h`;
  if (h > 0) return `${h}h ${min}m`;
  return `${min}m`;
}

/** A value as the reader reads numbers; `compact` for sums that run to thousands (12.3K). */
export function formatValue(value: number, displayType: DisplayType, locale?: string, compact = false): string {
  switch (displayType) {
    case 'TimeSeconds':
      return duration(value, locale);
    case 'NumberPercentage':
      // The sign where the reader's language puts it, spaced as it spaces it (held: `66,7 %`).
      return percentage(value, locale);
    case 'NumberPrecision2':
      return numberFormat(locale, 'precision2').format(value);
    case 'Number':
    case 'Unspecified':
      // Sums that run to thousands read better short: 12,261 damage a match is 12K.
      if (compact && Math.abs(value) >= 10_000) return compactNumber(value, locale);
      return Number.isInteger(value)
        ? numberFormat(locale, 'integer').format(value)
        : numberFormat(locale, Math.abs(value) >= 100 ? 'integer' : 'precision2').format(value);
  }
}

/** `27.7`, `27,7`: one decimal, as the reader writes it (a table's cell, whose heading names the unit). */
export const tenths = (value: number, locale?: string): string => numberFormat(locale, 'tenths').format(value);

/** A share of a hundred as the reader writes it: `66.7%` (en), `66,7 %` (de, fr, es-ES), `66,7%` (pt-BR); `whole` drops the tenth. */
export function percentage(value: number, locale?: string, whole = false): string {
  return numberFormat(locale, whole ? 'percentWhole' : 'percent').format(value / 100);
}

/**
 * What a stat shows: its value formatted for the reader when the value and its kind are known
 * (a figure's own kind wins: damage per match is a whole number), else the answer's display value.
 */
export function statValue(stat: Stat, locale?: string, figure?: Figure, compact = false): string {
  const type = figure ? FIGURE_INFO[figure].displayType : stat.displayType;
  if (stat.value === null || !Number.isFinite(stat.value) || !isDisplayType(type)) return stat.displayValue;
  const value = type === 'NumberPercentage' ? percentOnHundred(stat.value, stat.displayValue) : stat.value;
  return formatValue(value, type, locale, compact);
}

// ---------------------------------------------------------------------------------------------
// Places, worded honestly

/**
 * "top 3%" from a percentile of 97, "top 0.9%" from 99.1, "top 28%" from 72.5: a tenth of a percent
 * only under 10 %, where it tells players apart (a profile's "Damage/match 9,928 · top 27.5%" was a
 * character too long for a phone's line). Only in the better half: below it a share says little a
 * player wants to read, so nothing is said.
 */
export function topShare(percentile: number | null, locale?: string): string | null {
  if (percentile === null || !Number.isFinite(percentile) || percentile < 50) return null;
  const toTenth = Math.max(0.1, Math.round((100 - percentile) * 10) / 10);
  const share = toTenth >= 10 ? Math.round(100 - percentile) : toTenth;
  // Held together: a phone's line never ends between "top" and its share.
  return unbroken(say(locale, 'place.top', { share: percentage(share, locale, Number.isInteger(share)) }));
}

/**
 * The place of a figure, if it has one worth saying: only for figures where more is better (a ratio
 * or a rating, not a count such as kills or deaths), and only in the better half.
 */
export function place(stat: Stat, figure: Figure, locale?: string): string | null {
  return FIGURE_INFO[figure].higherIsBetter === true ? topShare(stat.percentile, locale) : null;
}

// ---------------------------------------------------------------------------------------------
// Times: Discord's timestamps, rendered live in each reader's time zone and language

/** `<t:…:R>` ("3 hours ago"), kept current by the reader's client. */
export const relativeTime = (iso: string): string => `<t:${Math.floor(Date.parse(iso) / 1000)}:R>`;

// Real answers say "none known" with `0001-01-01T00:00:00+00:00`, and a misread date lands near
// 1970 or 2000 (`Date.parse('0')` is 2000-01-01): neither is a time a player played.
const SHOWN_AFTER = Date.UTC(2000, 0, 1);
const AHEAD_MS = 86_400_000;

/**
 * Epoch milliseconds of a date an answer gives, when it is worth showing: one without an offset read
 * as UTC (as the schemas read dates), null for the "none known" sentinel, anything up to 2000, more
 * than a day ahead of `now`, or what is no date.
 */
export function dateWorthShowing(text: unknown, now: number = Date.now()): number | null {
  if (typeof text !== 'string') return null;
  const t = parseAnswerDate(text);
  return Number.isNaN(t) || t <= SHOWN_AFTER || t > now + AHEAD_MS ? null : t;
}

/** `<t:…:R>` of a date an answer gives, or null when it is not worth showing (`dateWorthShowing`). */
export function answerTime(text: unknown): string | null {
  const t = dateWorthShowing(text);
  return t === null ? null : `<t:${Math.floor(t / 1000)}:R>`;
}

const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();
/**
 * "2 days ago", "vor 3 Std.": how long ago, as plain text, for what cannot show Discord's live
 * timestamps (an autocomplete choice); null for a date not worth showing.
 */
export function agoText(text: unknown, locale?: string, now = Date.now()): string | null {
  const t = dateWorthShowing(text);
  if (t === null) return null;
  const language = locale ?? 'en-US';
  let format = relativeFormats.get(language);
  if (!format) {
    format = new Intl.RelativeTimeFormat(language, { numeric: 'auto', style: 'short' });
    if (relativeFormats.size < 64) relativeFormats.set(language, format);
  }
  const minutes = Math.max(0, Math.round((now - t) / 60_000));
  if (minutes < 60) return format.format(-minutes, 'minute');
  if (minutes < 1_440) return format.format(-Math.round(minutes / 60), 'hour');
  return format.format(-Math.round(minutes / 1_440), 'day');
}

/** When the data is from, for the embed's own `timestamp`. */
export const dataTime = (meta: LookupMeta): string => new Date(meta.fetchedAt).toISOString();

/** Stale data opens the description: what failed, and how old the data shown is. */
export function staleWarning(meta: LookupMeta, locale?: string): string | null {
  if (meta.source !== 'stale') return null;
  const key: TextKey =
    meta.staleBecause?.kind === 'rate_limited' ? 'stale.busy' : meta.staleBecause?.kind === 'timeout' ? 'stale.timeout' : 'stale.unavailable';
  return say(locale, key, { when: relativeTime(dataTime(meta)) });
}

/** A description in the reader's language: the stale warning first when there is one, then the lines given, blanks dropped. */
export function describe(meta: LookupMeta, locale: string | undefined, ...lines: (string | null | undefined | false)[]): string {
  return [staleWarning(meta, locale), ...lines].filter((l): l is string => typeof l === 'string' && l.length > 0).join('\n');
}

/** A word as the start of a label: `ranked` -> `Ranked`. */
export const capitalised = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A queue's name in the reader's language (`ranked` -> `Ranked`, `Gewertet`); one the bot does not know, as it came, capitalised. */
export const queueName = (queue: string, locale?: string): string =>
  (QUEUES as readonly string[]).includes(queue) ? say(locale, `queue.${queue as Queue}`) : capitalised(queue);

/** A figure's label in the reader's language (`winRate` -> `Win rate`, `Siegquote`). */
export const figureLabel = (figure: Figure, locale?: string): string => say(locale, `figure.${figure}`);

/** The footer every lookup reply carries: which game, on which platform (the time is the embed's timestamp). */
export const footerOf = (title: TitleSlug, platform: string | null, ...more: (string | null)[]): { text: string } => ({
  text: [titleName(title), platformName(platform), ...more].filter((s): s is string => !!s).join(' · '),
});
