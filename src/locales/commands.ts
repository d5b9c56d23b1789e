// The command tree in every language: names and descriptions Discord shows in its picker, added to
// the English tree as `name_localizations` / `description_localizations`. Descriptions are found by
// their English text (templates such as `Platform: {list}` match with their values); choices named
// after a figure or a queue take its name. What no file knows stays English (a test lists it).
import { DISCORD_LOCALES, LANGUAGES, fill, type Language } from './languages.js';
import { en, enCommands } from './en.js';

type Node = {
  name: string;
  description?: string;
  name_localizations?: Record<string, string> | null;
  description_localizations?: Record<string, string> | null;
  options?: readonly Node[];
  choices?: readonly { name: string; value: string | number; name_localizations?: Record<string, string> | null }[];
};

const OTHERS = Object.keys(DISCORD_LOCALES) as Exclude<Language, 'en'>[];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Each English description as a pattern: `{list}` matches any text. */
const DESCRIPTION_PATTERNS = Object.entries(enCommands.descriptions).map(([key, template]) => {
  const names: string[] = [];
  const source = template.split(/(\{\w+\})/).map((part) => {
    const m = /^\{(\w+)\}$/.exec(part);
    if (!m) return escape(part);
    names.push(m[1]!);
    return '(.+?)';
  });
  return { key: key as keyof typeof enCommands.descriptions, regex: new RegExp(`^${source.join('')}$`), names };
});

/** The English description's key and values, if the file knows it. */
export function describedBy(description: string): { key: keyof typeof enCommands.descriptions; vars: Record<string, string> } | undefined {
  for (const p of DESCRIPTION_PATTERNS) {
    const m = p.regex.exec(description);
    if (m) return { key: p.key, vars: Object.fromEntries(p.names.map((n, i) => [n, m[i + 1]!])) };
  }
  return undefined;
}

/** The texts a choice may be named after: figures (`K/D`, `Win rate`), queues (`Ranked`) and periods (`Week`). */
const CHOICE_KEYS = Object.entries(en).filter(([k]) => k.startsWith('figure.') || k.startsWith('queue.') || k.startsWith('period.'));

function localized(of: (language: Exclude<Language, 'en'>) => string | undefined): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const language of OTHERS) {
    const text = of(language);
    if (text !== undefined) for (const locale of DISCORD_LOCALES[language]) out[locale] = text;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function localizeNode<T extends Node>(node: T): T {
  const out: T = { ...node };
  const nameKey = node.name as keyof typeof enCommands.names;
  if (nameKey in enCommands.names) {
    const names = localized((l) => LANGUAGES[l].commands.names[nameKey]);
    if (names) out.name_localizations = names;
  }
  const described = node.description ? describedBy(node.description) : undefined;
  if (described) {
    const descriptions = localized((l) => fill(LANGUAGES[l].commands.descriptions[described.key], described.vars));
    if (descriptions) out.description_localizations = descriptions;
  }
  if (node.options) out.options = node.options.map(localizeNode);
  if (node.choices)
    out.choices = node.choices.map((c) => {
      const key = CHOICE_KEYS.find(([, label]) => label === c.name)?.[0] as keyof typeof en | undefined;
      const names = key ? localized((l) => LANGUAGES[l].texts[key]) : undefined;
      return names ? { ...c, name_localizations: names } : c;
    });
  return out;
}

/** A command's JSON with every name and description the language files know, localized. */
export function localizeCommand<T extends object>(command: T): T {
  return localizeNode(command as unknown as Node) as unknown as T;
}
