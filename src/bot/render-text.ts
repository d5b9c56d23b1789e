// A reply as plain text, for `npm run preview`: what Discord would show, read in a terminal.
import { ComponentType } from 'discord.js';

import type { Reply } from '../embeds/index.js';

/**
 * Discord's `<t:unix:style>` timestamps as UTC dates; markdown escapes and bold marks removed, and
 * what keeps a name from being a mention or a link (a zero-width space) or a line from breaking
 * (no-break spaces) shown as Discord shows it.
 */
function plain(text: string): string {
  return text
    .replace(/(?<!\\)<t:(\d+):\w>/g, (_, s: string) => new Date(Number(s) * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC')
    .replace(/\*\*/g, '')
    .replace(/^#{1,3} /gm, '')
    .replace(/\\([\\*_`~|<>#[\]().-])/g, '$1')
    .replace(/(@|:)\u200b/g, '$1')
    .replace(/\u00a0/g, ' ');
}

export function renderText(reply: Reply): string {
  const out: string[] = [];
  if (reply.ephemeral) out.push('(only you can see this)');
  if (reply.content) out.push(plain(reply.content));
  for (const e of reply.embeds) {
    const bar = '│ ';
    out.push(e.author ? `┌─ ${plain(e.author.name)}` : '┌─');
    if (e.title) out.push(`${bar}${plain(e.title)}`);
    if (e.description) for (const line of plain(e.description).split('\n')) out.push(`${bar}${line}`);
    if (e.thumbnail) out.push(`${bar}[picture: ${e.thumbnail.url}]`);
    for (const f of e.fields ?? []) {
      const value = plain(f.value).split('\n');
      if (f.inline && value.length <= 2) out.push(`${bar}${plain(f.name)}: ${value.join('  ')}`);
      else {
        out.push(`${bar}${plain(f.name)}`);
        for (const line of value) out.push(`${bar}  ${line}`);
      }
    }
    if (e.footer) out.push(`└─ ${plain(e.footer.text)}`);
  }
  for (const row of reply.components)
    out.push(
      row.components
        .map((c) => {
          if (c.type === ComponentType.Button && 'label' in c) return `[${c.label ?? ''}${c.disabled ? '' : '*'}]`;
          if (c.type === ComponentType.StringSelect) return `[${c.placeholder ?? 'Select'} ▾ ${c.options.length} options]`;
          return '[control]';
        })
        .join(' '),
    );
  return out.join('\n');
}
