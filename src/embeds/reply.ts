// What a handler answers: plain Discord message data (embeds, components, ephemeral or not). The
// router sends it; the preview prints it. Everything here is clamped to Discord's limits.
import { escapeMarkdown } from 'discord.js';
import type { APIActionRowComponent, APIComponentInMessageActionRow, APIEmbed, APIEmbedField } from 'discord.js';

import type { LookupSource } from '../lookup/client.js';
import { clip, unmentioned, withoutControls } from './text.js';
import { webUrl } from './urls.js';

export type ActionRow = APIActionRowComponent<APIComponentInMessageActionRow>;

export interface Reply {
  content?: string;
  embeds: APIEmbed[];
  components: ActionRow[];
  /** Only the invoker sees it (errors, another user's view of someone's controls). */
  ephemeral: boolean;
  /** Files sent with it: a card, shown as the embed's image through `attachment://<name>`. */
  files?: { name: string; data: Buffer }[];
  /** Where the data came from, for the interaction's log line; not sent. */
  source?: LookupSource;
}

/** Discord's limits on a message; a builder that passes them gets the whole message refused. */
export const LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  /** All titles, descriptions, field names and values, footers and author names of a message. */
  message: 6000,
  choices: 25,
  choiceName: 100,
  choiceValue: 100,
  selectOptions: 25,
  selectLabel: 100,
  customId: 100,
} as const;

/**
 * A player's name or any user text, safe to put in markdown: no formatting, no mentions, no links,
 * nothing that turns its line into a heading, a list, a quote or subtext, and no control that
 * reverses the reader's line. Player names are chosen by anyone (`[free skins](https://...)`,
 * `# BIG`), and replies are public.
 */
export const safeText = (text: string): string =>
  unmentioned(
    escapeMarkdown(withoutControls(text), { heading: true, bulletedList: true })
      // The line-start forms discord.js does not escape: a quote (`> `, `>>> `) and subtext (`-# `),
      // and a numbered list (`1. `; its own escape takes `25.0%` for one too).
      .replace(/^(\s*)(>|-#)/gm, '$1\\$2')
      .replace(/^(\s*\d+)\.(?=\s)/gm, '$1\\.')
      // Links: no `[text](url)` of a name's own, no `<...>` (a link, a channel, an emoji, a time), no bare address.
      .replace(/[[\]<]/g, '\\$&')
      .replace(/:\/\//g, ':\u200b//'),
  );

function embedLength(e: APIEmbed): number {
  let n = (e.title?.length ?? 0) + (e.description?.length ?? 0) + (e.footer?.text.length ?? 0) + (e.author?.name.length ?? 0);
  for (const f of e.fields ?? []) n += f.name.length + f.value.length;
  return n;
}

/**
 * Clamps an embed to Discord's limits: field count, each text's length, and the message total
 * (`budget`), dropping fields from the end when the total would pass it.
 */
export function clampEmbed(e: APIEmbed, budget: number = LIMITS.message): APIEmbed {
  const out: APIEmbed = withWebUrls(e);
  if (out.title !== undefined) out.title = clip(out.title, LIMITS.title);
  if (out.description !== undefined) out.description = clip(out.description, LIMITS.description);
  if (out.footer) out.footer = { ...out.footer, text: clip(out.footer.text, LIMITS.footer) };
  if (out.author) out.author = { ...out.author, name: clip(out.author.name, LIMITS.author) };
  const fields: APIEmbedField[] = (out.fields ?? []).slice(0, LIMITS.fields).map((f) => ({
    ...f,
    name: clip(f.name || '\u200b', LIMITS.fieldName),
    value: clip(f.value || '\u200b', LIMITS.fieldValue),
  }));
  out.fields = fields;
  while (embedLength(out) > budget && fields.length > 0) fields.pop();
  if (embedLength(out) > budget && out.description) out.description = clip(out.description, Math.max(1, budget - embedLength({ ...out, description: '' })));
  return out;
}

/** The embed without any URL Discord would refuse (the whole message with it): each is dropped. */
function withWebUrls(e: APIEmbed): APIEmbed {
  const out: APIEmbed = { ...e };
  if (out.url !== undefined && !webUrl(out.url)) delete out.url;
  if (out.thumbnail && !webUrl(out.thumbnail.url)) delete out.thumbnail;
  if (out.image && !webUrl(out.image.url)) delete out.image;
  if (out.author) {
    const { icon_url, url, ...author } = out.author;
    out.author = { ...author, ...(webUrl(icon_url) ? { icon_url } : {}), ...(webUrl(url) ? { url } : {}) };
  }
  if (out.footer) {
    const { icon_url, ...footer } = out.footer;
    out.footer = { ...footer, ...(webUrl(icon_url) ? { icon_url } : {}) };
  }
  return out;
}

/** A reply with one embed, clamped. */
export function embedReply(embed: APIEmbed, components: ActionRow[] = [], ephemeral = false, source?: LookupSource): Reply {
  return { embeds: [clampEmbed(embed)], components, ephemeral, ...(source ? { source } : {}) };
}

/** A short ephemeral text reply (errors, hints). */
export function notice(text: string): Reply {
  return { content: clip(text, 2000), embeds: [], components: [], ephemeral: true };
}
