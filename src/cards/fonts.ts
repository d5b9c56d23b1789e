// The fonts cards are drawn with, shipped with the project from the npm registry (Noto Sans from
// @fontsource/noto-sans, SIL Open Font License 1.1): Latin, Latin extended, Cyrillic (and extended),
// Greek (and extended), Vietnamese, regular and bold. Each subset file serves its unicode range, so
// a character none of them covers (CJK, emoji, ...) would be drawn as an empty box: `drawable`
// leaves such characters off the card, and the reply's text (which has the full name) stays the
// place where they read.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const FONT_FAMILY = 'Noto Sans';
const SUBSETS = ['latin', 'latin-ext', 'cyrillic', 'cyrillic-ext', 'greek', 'greek-ext', 'vietnamese'] as const;
const WEIGHTS = [400, 700] as const;

/** A font file and the code points it serves, as the renderer registers it. */
export interface FontFile {
  path: string;
  weight: number;
  unicodeRange: [number, number][];
}

/** `U+0000-00FF,U+0131,U+02??` -> inclusive ranges. */
export function parseUnicodeRange(text: string): [number, number][] {
  return text.split(',').flatMap((part): [number, number][] => {
    const m = /^U\+([0-9A-F?]+)(?:-([0-9A-F]+))?$/i.exec(part.trim());
    if (!m) return [];
    const [, from = '', to] = m;
    if (from.includes('?')) return [[parseInt(from.replace(/\?/g, '0'), 16), parseInt(from.replace(/\?/g, 'F'), 16)]];
    return [[parseInt(from, 16), parseInt(to ?? from, 16)]];
  });
}

let files: FontFile[] | undefined;

/** The shipped font files, resolved from the installed package. */
export function fontFiles(): FontFile[] {
  if (files) return files;
  const ranges = JSON.parse(readFileSync(require.resolve('@fontsource/noto-sans/unicode.json'), 'utf8')) as Record<string, string>;
  files = SUBSETS.flatMap((subset) =>
    WEIGHTS.map((weight) => ({
      path: require.resolve(`@fontsource/noto-sans/files/noto-sans-${subset}-${weight}-normal.woff2`),
      weight,
      unicodeRange: parseUnicodeRange(ranges[subset] ?? ''),
    })),
  );
  return files;
}

let covered: [number, number][] | undefined;

/** Whether the shipped fonts draw this code point. */
export function isDrawable(codePoint: number): boolean {
  covered ??= fontFiles().flatMap((f) => f.unicodeRange);
  return covered.some(([from, to]) => codePoint >= from && codePoint <= to);
}

/**
 * `text` with what the fonts cannot draw left out (and the spaces that leaves tidied), so a card
 * never shows an empty box: `Nova 漢字` -> `Nova`. Control and zero-width characters go too.
 */
export function drawable(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp === 0xfeff) continue;
    out += isDrawable(cp) ? ch : ' ';
  }
  return out.replace(/\s+/g, ' ').trim();
}
