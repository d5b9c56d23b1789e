// Autocomplete choices shared by the commands: players found through the search endpoint.
import { findEndpoint, type PlatformSlug, type TitleSlug } from '../src/catalog/index.js';
import { LIMITS, clip, platformName } from '../src/embeds/index.js';
import { AUTOCOMPLETE_DEADLINE_MS, type Choice, type Deps } from './types.js';

export const choice = (name: string, value: string): Choice => ({ name: clip(name, LIMITS.choiceName), value });

/**
 * Players whose handle starts with what was typed (when the title searches that platform), then
 * what was typed itself, last: a value typed past autocomplete is always offered.
 */
export async function searchChoices(title: TitleSlug, platform: PlatformSlug | undefined, typed: string, deps: Deps): Promise<Choice[]> {
  const out: Choice[] = [];
  if (platform && findEndpoint(title, 'search')?.platforms.includes(platform)) {
    const r = await deps.lookup.search(title, platform, typed, { deadlineMs: AUTOCOMPLETE_DEADLINE_MS });
    for (const p of r.data ?? []) {
      if (p.platformUserIdentifier.length > LIMITS.choiceValue) continue;
      out.push(choice([p.platformUserHandle, platformName(p.platformSlug)].filter(Boolean).join(' · '), p.platformUserIdentifier));
      if (out.length >= LIMITS.choices - 1) break;
    }
  }
  if (typed.length <= LIMITS.choiceValue && !out.some((c) => c.value.toLowerCase() === typed.toLowerCase())) out.push(choice(typed, typed));
  return out;
}
