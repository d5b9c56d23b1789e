// Which languages have a file, and which of Discord's locales each one answers.
import { de, deCommands } from './de.js';
import { en, enCommands, type CommandTexts, type Texts } from './en.js';
import { es, esCommands } from './es.js';
import { fr, frCommands } from './fr.js';
import { ptBR, ptBRCommands } from './pt-br.js';

/** Each language's texts and command names; `nounsCapitalized`: a noun keeps its capital inside a sentence (German's `Keine Karten`). */
export const LANGUAGES = {
  en: { texts: en, commands: enCommands, nounsCapitalized: false },
  de: { texts: de, commands: deCommands, nounsCapitalized: true },
  fr: { texts: fr, commands: frCommands, nounsCapitalized: false },
  es: { texts: es, commands: esCommands, nounsCapitalized: false },
  'pt-BR': { texts: ptBR, commands: ptBRCommands, nounsCapitalized: false },
} as const satisfies Record<string, { texts: Texts; commands: CommandTexts; nounsCapitalized: boolean }>;
export type Language = keyof typeof LANGUAGES;

/** The Discord locales each language answers (command localizations are keyed by these). */
export const DISCORD_LOCALES: Record<Exclude<Language, 'en'>, readonly string[]> = {
  de: ['de'],
  fr: ['fr'],
  es: ['es-ES', 'es-419'],
  'pt-BR': ['pt-BR'],
};

/** `de`, `es-419`, `pt-BR` -> the language with a file; anything else reads English. */
export function languageOf(locale: string | null | undefined): Language {
  if (!locale || locale === 'en-US' || locale === 'en-GB') return 'en';
  if (locale === 'pt-BR') return 'pt-BR';
  const dash = locale.indexOf('-');
  const base = dash < 0 ? locale : locale.slice(0, dash);
  return base === 'de' || base === 'fr' || base === 'es' ? base : 'en';
}

export type Vars = Readonly<Record<string, string | number>>;

/** Puts `vars` into `{name}` places; a place with no value stays as it is (a test catches it). */
export function fill(template: string, vars: Vars = {}): string {
  if (!template.includes('{')) return template;
  // A value that opens a German compound (`{title}-Konto`) is joined to it whole: "Title-C-Konto",
  // not "Title C-Konto". Text quoted as code or in bold is left as it is.
  return template.replace(/\{(\w+)\}(-(?=\p{L}))?/gu, (whole, name: string, hyphen: string | undefined) => {
    const value = vars[name];
    if (value === undefined) return whole;
    const text = String(value);
    return hyphen ? `${/[`*]/.test(text) ? text : text.replace(/[ \u00a0]+/g, '-')}-` : text;
  });
}
