// The fonts cards are drawn with, shipped with the project from the npm registry (Noto Sans from
// @fontsource/noto-sans, SIL Open Font License 1.1): Latin, Latin extended, Cyrillic (and extended),
// Greek (and extended), Vietnamese, regular and bold. Each subset file serves its unicode range, so
// a character none of them covers (CJK, emoji, ...) would be drawn as an empty box: `drawable`
// leaves such characters off the card, and the reply's text (which has the full name) stays the
// place where they read.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';

import { withoutControls } from '../catalog/text.js';

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

/**
 * The code points a font file has a glyph for, from its character map (`cmap`, formats 4 and 12).
 * Read from the WOFF file beside the WOFF2 one the renderer draws with (the same glyphs): its tables
 * are each zlib-deflated, which Node reads, where WOFF2's one Brotli stream would have to be walked.
 */
export function fontCharacters(woffPath: string): Set<number> {
  const file = readFileSync(woffPath);
  if (file.readUInt32BE(0) !== 0x774f4646) throw new Error(`${woffPath}: not a WOFF file`);
  let cmap: Buffer | undefined;
  for (let i = 0, n = file.readUInt16BE(12); i < n; i++) {
    const entry = 44 + i * 20;
    if (file.toString('latin1', entry, entry + 4) !== 'cmap') continue;
    const [offset, compressed, original] = [file.readUInt32BE(entry + 4), file.readUInt32BE(entry + 8), file.readUInt32BE(entry + 12)];
    const bytes = file.subarray(offset, offset + compressed);
    cmap = compressed < original ? inflateSync(bytes) : bytes;
  }
  if (!cmap) throw new Error(`${woffPath}: no character map`);
  const chars = new Set<number>();
  for (let i = 0, n = cmap.readUInt16BE(2); i < n; i++) {
    const [platform, encoding, at] = [cmap.readUInt16BE(4 + i * 8), cmap.readUInt16BE(6 + i * 8), cmap.readUInt32BE(8 + i * 8)];
    // Unicode maps only: Windows' (3, 1 or 10) or Unicode's own (0).
    if (!(platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10)))) continue;
    const format = cmap.readUInt16BE(at);
    if (format === 12)
      for (let g = 0, groups = cmap.readUInt32BE(at + 12); g < groups; g++) {
        const group = at + 16 + g * 12;
        for (let c = cmap.readUInt32BE(group), end = cmap.readUInt32BE(group + 4); c <= end; c++) chars.add(c);
      }
    else if (format === 4) {
      const segments = cmap.readUInt16BE(at + 6) / 2;
      const [ends, starts, deltas, rangeOffsets] = [at + 14, at + 16 + segments * 2, at + 16 + segments * 4, at + 16 + segments * 6];
      for (let seg = 0; seg < segments; seg++) {
        const [start, end, delta, rangeAt] = [
          cmap.readUInt16BE(starts + seg * 2),
          cmap.readUInt16BE(ends + seg * 2),
          cmap.readInt16BE(deltas + seg * 2),
          rangeOffsets + seg * 2,
        ];
        const rangeOffset = cmap.readUInt16BE(rangeAt);
        for (let c = start; c <= end && c !== 0xffff; c++) {
          let glyph = rangeOffset === 0 ? c : cmap.readUInt16BE(rangeAt + rangeOffset + (c - start) * 2);
          if (rangeOffset !== 0 && glyph === 0) continue;
          glyph = (glyph + delta) & 0xffff;
          if (glyph !== 0) chars.add(c);
        }
      }
    }
  }
  return chars;
}

let covered: Set<number> | undefined;

/**
 * Whether the shipped fonts draw this code point, in both weights: it is in a file's declared range
 * (the renderer picks the file by it) and that file has a glyph for it. The declared ranges are wider
 * than the glyphs: U+2010 (a hyphen) or U+203C (‼) are in the Latin file's range with no glyph.
 */
export function isDrawable(codePoint: number): boolean {
  if (!covered) {
    const byWeight = WEIGHTS.map((weight) => {
      const set = new Set<number>();
      for (const f of fontFiles().filter((file) => file.weight === weight)) {
        const glyphs = fontCharacters(f.path.replace(/\.woff2$/, '.woff'));
        for (const [from, to] of f.unicodeRange) for (let c = from; c <= to; c++) if (glyphs.has(c)) set.add(c);
      }
      return set;
    });
    covered = new Set([...byWeight[0]!].filter((c) => byWeight.every((set) => set.has(c))));
  }
  return covered.has(codePoint);
}

/** Hyphens the fonts lack, drawn as the one they have. */
const HYPHENS = new Set([0x2010, 0x2011, 0x2012]);

/**
 * `text` with what the fonts cannot draw left out (and the spaces that leaves tidied), so a card
 * never shows an empty box: `Nova 漢字` -> `Nova`. Composed first (NFC: `o` and a combining ring
 * become `o` with a ring, which the fonts have); a character the fonts lack is drawn as its
 * compatibility form when they have that (`‼` -> `!!`, a fullwidth `Ａ` -> `A`), a hyphen as `-`;
 * a combining mark or variation selector left over goes (a space there would split the name);
 * another is a space. Control and zero-width characters go too.
 */
export function drawable(text: string): string {
  let out = '';
  // A player's text as every reply shows it (src/catalog/text.ts), then without the invisible marks
  // and joiners a font has nothing to draw for.
  for (const ch of withoutControls(text).normalize('NFC')) {
    const cp = ch.codePointAt(0)!;
    if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2060 && cp <= 0x206f) || cp === 0xfeff) continue;
    if (isDrawable(cp)) out += ch;
    else if (HYPHENS.has(cp)) out += '-';
    else if (/^[\p{M}\uFE00-\uFE0F]$/u.test(ch)) continue;
    else {
      const compatible = ch.normalize('NFKC');
      out += compatible !== ch && [...compatible].every((c) => isDrawable(c.codePointAt(0)!)) ? compatible : ' ';
    }
  }
  return out.replace(/\s+/g, ' ').trim();
}
