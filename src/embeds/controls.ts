// Buttons and select menus. Their custom ids carry only a short state id and a page: the state
// (what was looked up, and for whom) is kept by the bot, so ids stay far under Discord's 100 characters.
import { ButtonStyle, ComponentType } from 'discord.js';
import type { APIButtonComponentWithCustomId, APISelectMenuOption, APIStringSelectComponent } from 'discord.js';

import { say } from '../locales/index.js';
import { LIMITS, type ActionRow } from './reply.js';
import { clip, withoutControls } from './text.js';

export type ControlAction =
  | { kind: 'page'; stateId: string; page: number }
  | { kind: 'open'; stateId: string }
  | { kind: 'switch'; stateId: string }
  | { kind: 'go'; stateId: string; to: string };

/** Reads a custom id this module made; null for anything else. */
export function parseCustomId(customId: string): ControlAction | null {
  const page = /^pg:([\w-]{1,40}):(\d{1,4})$/.exec(customId);
  if (page?.[1] && page[2]) return { kind: 'page', stateId: page[1], page: Number(page[2]) };
  const open = /^op:([\w-]{1,40})$/.exec(customId);
  if (open?.[1]) return { kind: 'open', stateId: open[1] };
  const change = /^sw:([\w-]{1,40})$/.exec(customId);
  if (change?.[1]) return { kind: 'switch', stateId: change[1] };
  const go = /^go:([\w-]{1,40}):(\w{1,20})$/.exec(customId);
  if (go?.[1] && go[2]) return { kind: 'go', stateId: go[1], to: go[2] };
  return null;
}

const button = (customId: string, label: string, disabled: boolean): APIButtonComponentWithCustomId => ({
  type: ComponentType.Button,
  custom_id: customId,
  label: withoutControls(label),
  style: ButtonStyle.Secondary,
  disabled,
});

/**
 * ◀ 2 / 5 ▶ under a paged reply; nothing when everything fits on one page. `openEnded`: the total
 * is not known (a list paged by cursor), only that another page follows: `1 / 2+`.
 */
export function pageControls(stateId: string, page: number, pageCount: number, locale?: string, disabled = false, openEnded = false): ActionRow | null {
  // No state kept (the view store failed): no controls that could not work.
  if (pageCount <= 1 || !stateId) return null;
  return {
    type: ComponentType.ActionRow,
    components: [
      button(`pg:${stateId}:${Math.max(0, page - 1)}`, say(locale, 'controls.previous'), disabled || page <= 0),
      button(`pgi:${stateId}`, `${page + 1} / ${pageCount}${openEnded ? '+' : ''}`, true),
      button(`pg:${stateId}:${Math.min(pageCount - 1, page + 1)}`, say(locale, 'controls.next'), disabled || page >= pageCount - 1),
    ],
  };
}

/** Ways onward from a reply: to another view of the same player (`to` is what the command opens). */
export function goButtons(stateId: string, targets: readonly { to: string; label: string }[]): ActionRow | null {
  if (targets.length === 0 || !stateId) return null;
  return {
    type: ComponentType.ActionRow,
    components: targets.slice(0, 5).map((t) => button(`go:${stateId}:${t.to}`, t.label, false)),
  };
}

/** A select menu that opens one of the listed items (a match report, a profile) in a message of its own. */
export function openSelect(stateId: string, placeholder: string, options: APISelectMenuOption[], disabled = false): ActionRow | null {
  return selectMenu(`op:${stateId}`, stateId, placeholder, options, disabled);
}

/** A select menu that turns the reply into another of its kind in place (another segment type, season or queue). */
export function switchSelect(stateId: string, placeholder: string, options: APISelectMenuOption[]): ActionRow | null {
  return selectMenu(`sw:${stateId}`, stateId, placeholder, options, false);
}

function selectMenu(customId: string, stateId: string, placeholder: string, options: APISelectMenuOption[], disabled: boolean): ActionRow | null {
  if (options.length === 0 || !stateId) return null;
  const menu: APIStringSelectComponent = {
    type: ComponentType.StringSelect,
    custom_id: customId,
    placeholder: clip(placeholder, 150),
    // An empty description is refused (1 to 100 characters), the whole message with it: left out.
    options: options.slice(0, LIMITS.selectOptions).map(({ description, ...o }) => ({
      ...o,
      // A player's name shown as any other (src/catalog/text.ts); the value stays what it opens.
      label: clip(withoutControls(o.label) || '?', LIMITS.selectLabel),
      value: clip(o.value, LIMITS.choiceValue),
      ...(description && withoutControls(description) ? { description: clip(withoutControls(description), 100) } : {}),
    })),
    disabled,
  };
  return { type: ComponentType.ActionRow, components: [menu] };
}

export const rows = (...list: (ActionRow | null)[]): ActionRow[] => list.filter((r): r is ActionRow => r !== null);
