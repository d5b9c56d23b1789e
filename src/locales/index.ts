// The replies' fixed texts and the command tree in the reader's language: one file per language,
// English for every locale without one. `say` picks a text by `interaction.locale`; numbers inside
// it are formatted by the caller (they follow the locale too).
import { en, enCommands, type CommandTexts, type TextKey, type Texts } from './en.js';
import { DISCORD_LOCALES, LANGUAGES, fill, languageOf, type Language, type Vars } from './languages.js';

/** A fixed text in the reader's language, with its values put in. */
export function say(locale: string | null | undefined, key: TextKey, vars?: Vars): string {
  return fill(LANGUAGES[languageOf(locale)].texts[key], vars);
}

/** The keys that come in a count's forms (`x.one`, `x.other`). */
type CountBase<K> = K extends `${infer B}.one` ? (`${B}.other` extends TextKey ? B : never) : never;
export type CountKey = CountBase<TextKey>;

const pluralRules = new Map<Language, Intl.PluralRules>();

/** The form of a text for `n` (French says "1 match", "0 match"; English "0 matches"). `{n}` is `shown`, or `n`. */
export function sayCount(locale: string | null | undefined, key: CountKey, n: number, vars: Vars = {}, shown?: string): string {
  const language = languageOf(locale);
  let rules = pluralRules.get(language);
  if (!rules) pluralRules.set(language, (rules = new Intl.PluralRules(language)));
  const form = rules.select(n) === 'one' ? 'one' : 'other';
  return say(locale, `${key}.${form}` as TextKey, { n: shown ?? n, ...vars });
}

export { en, enCommands, type CommandTexts, type TextKey, type Texts };
export { DISCORD_LOCALES, LANGUAGES, fill, languageOf, type Language, type Vars } from './languages.js';
export { localizeCommand } from './commands.js';

/** A noun (a heading's word, `Maps`) as it stands inside a sentence in the reader's language: `No maps`, `Keine Karten`. */
export function inSentence(locale: string | null | undefined, noun: string): string {
  return LANGUAGES[languageOf(locale)].nounsCapitalized ? noun : noun.toLowerCase();
}

/** A command's or option's name as the reader's picker shows it (`player` -> `spieler`). */
export function optionName(locale: string | null | undefined, name: string): string {
  const names: Record<string, string> = LANGUAGES[languageOf(locale)].commands.names;
  return names[name] ?? name;
}

/** A placeholder of a command line in the reader's language (`<name>` -> `<Name>`), one the texts name; else as it is. */
function placeholder(locale: string | null | undefined, value: string): string {
  const word = /^<([a-z]+)>$/.exec(value)?.[1];
  const key = `placeholder.${word ?? ''}`;
  return word && key in LANGUAGES.en.texts ? `<${say(locale, key as TextKey)}>` : value;
}

/**
 * A command line as the reader types it: command, subcommand and option names in their language,
 * values as they are, placeholders in the reader's words (`/link title:title_c player:<name>` ->
 * `/verknüpfen titel:title_c spieler:<Name>`).
 */
export function commandLine(locale: string | null | undefined, line: string): string {
  return line
    .split(' ')
    .map((word) => {
      const option = /^([a-z_]+):(.*)$/.exec(word);
      if (option) return `${optionName(locale, option[1]!)}:${placeholder(locale, option[2]!)}`;
      return word.startsWith('/') ? `/${optionName(locale, word.slice(1))}` : optionName(locale, word);
    })
    .join(' ');
}

/**
 * The name of the language a text for `locale` is written in (one with a file, else English), as
 * `reader` writes it: `de` for an English reader is "German", for a German one "Deutsch".
 */
export function languageName(locale: string | null | undefined, reader: string | null | undefined): string {
  const language = languageOf(locale);
  try {
    return new Intl.DisplayNames([languageOf(reader)], { type: 'language' }).of(language) ?? language;
  } catch {
    return language;
  }
}

/** The languages with a file as choices of an option, each named in the reader's language (`German`, `Deutsch`), its value a Discord locale. */
export function languageChoices(): { name: string; value: string; name_localizations: Record<string, string> }[] {
  const named = (language: Language, reader: string) => {
    const name = languageName(language, reader);
    return name.charAt(0).toLocaleUpperCase(reader) + name.slice(1);
  };
  return (Object.keys(LANGUAGES) as Language[]).map((language) => ({
    name: named(language, 'en'),
    // A Discord locale the language answers: `en-US`, `de`, `fr`, `es-ES`, `pt-BR`.
    value: language === 'en' ? 'en-US' : (DISCORD_LOCALES[language][0] ?? language),
    name_localizations: Object.fromEntries(Object.values(DISCORD_LOCALES).flatMap((locales) => locales.map((locale) => [locale, named(language, locale)]))),
  }));
}
