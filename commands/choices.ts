// Autocomplete choices shared by the commands: platforms, and players found through the search endpoint.
import { PLATFORMS, findEndpoint, type Endpoint, type PlatformSlug, type TitleSlug } from '../src/catalog/index.js';
import { LIMITS, clip, platformName } from '../src/embeds/index.js';
import { say } from '../src/locales/index.js';
import { choosePlatform } from './resolve.js';
import { AUTOCOMPLETE_DEADLINE_MS, type AutocompleteInput, type Choice, type Deps } from './types.js';

export const choice = (name: string, value: string): Choice => ({ name: clip(name, LIMITS.choiceName), value });

/**
 * Players whose handle starts with what was typed (when the title searches that platform), then
 * what was typed itself, last: a value typed past autocomplete is always offered.
 */
export async function searchChoices(title: TitleSlug, platform: PlatformSlug | undefined, typed: string, deps: Deps): Promise<Choice[]> {
  const out: Choice[] = [];
  if (platform && findEndpoint(title, 'search')?.platforms.includes(platform)) {
    const r = await deps.lookup.search(title, platform, typed, { deadlineMs: AUTOCOMPLETE_DEADLINE_MS });
    const found = (r.data ?? []).filter((p) => p.platformUserIdentifier.length <= LIMITS.choiceValue).slice(0, LIMITS.choices - 1);
    const names = found.map((p) => [p.platformUserHandle, platformName(p.platformSlug)].filter(Boolean).join(' · '));
    // Players of one name (two "Blaze" on one platform) are told apart by their identifier, kept
    // whole at the end of the choice: otherwise a member picks one of two identical lines.
    const shared = (name: string) => names.filter((n) => n === name).length > 1;
    found.forEach((p, i) => {
      const name = names[i] ?? p.platformUserIdentifier;
      const id = ` · ${p.platformUserIdentifier}`;
      out.push(
        shared(name) && p.platformUserIdentifier !== p.platformUserHandle
          ? choice(`${clip(name, LIMITS.choiceName - id.length)}${id}`, p.platformUserIdentifier)
          : choice(name, p.platformUserIdentifier),
      );
    });
  }
  if (typed.length <= LIMITS.choiceValue && !out.some((c) => c.value.toLowerCase() === typed.toLowerCase())) out.push(choice(typed, typed));
  return out;
}

/** Whether a choice fits what was typed (anything fits nothing typed). */
export const matchesTyped = (typed: string, ...texts: string[]) => typed.length === 0 || texts.some((t) => t.toLowerCase().includes(typed.toLowerCase()));

/** The platforms an endpoint serves, by name, those matching what was typed. */
export function platformChoices(endpoint: Endpoint, typed: string): Choice[] {
  return endpoint.platforms.filter((p) => matchesTyped(typed, p, PLATFORMS[p].name)).map((p) => choice(PLATFORMS[p].name, p));
}

/** Players for a `player` or `query` option: the linked account when nothing is typed, else search results and the text itself. */
export async function playerChoices(input: AutocompleteInput, endpoint: Endpoint, deps: Deps): Promise<Choice[]> {
  const typed = input.focused.value.trim();
  if (typed.length === 0) {
    const linked = await deps.links.get(input.userId, endpoint.title);
    return linked && endpoint.platforms.includes(linked.platform)
      ? [choice(say(input.locale, 'choice.linked', { handle: linked.handle }), linked.identifier)]
      : [];
  }
  const platform = await choosePlatform(input, endpoint, deps);
  return searchChoices(endpoint.title, typeof platform === 'string' ? platform : undefined, typed, deps);
}

/** What every kind's options have in common: platform and player choices. Never throws. */
export async function sharedChoices(input: AutocompleteInput, endpoint: Endpoint, deps: Deps): Promise<Choice[]> {
  switch (input.focused.name) {
    case 'platform':
      return platformChoices(endpoint, input.focused.value.trim());
    case 'player':
    case 'query':
      return playerChoices(input, endpoint, deps);
    default:
      return [];
  }
}
