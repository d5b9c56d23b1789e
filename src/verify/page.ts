// The pages a member's browser shows at the end of `/verify`: what was linked and verified, what was
// not and why, or what went wrong (nothing half-linked). Plain HTML that reads on a phone, in the
// member's language, every value escaped.
import { say, type TextKey } from '../locales/index.js';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface PageSection {
  heading: TextKey;
  /** Already in the reader's language; escaped here. */
  lines: string[];
}

export interface VerifyPage {
  locale: string | undefined;
  /** The headline: what happened, in a sentence. */
  lead: string;
  ok: boolean;
  sections?: PageSection[];
  /** Where to start again, when that is what the reader should do next. */
  again?: string | undefined;
}

export function verifyPageHtml(page: VerifyPage): string {
  const { locale } = page;
  const lang = escape((locale ?? 'en').split('-')[0] ?? 'en');
  const sections = (page.sections ?? [])
    .filter((s) => s.lines.length > 0)
    .map((s) => `<h2>${escape(say(locale, s.heading))}</h2><ul>${s.lines.map((l) => `<li>${escape(l)}</li>`).join('')}</ul>`)
    .join('');
  const again = page.again ? `<p><a class="button" href="${escape(page.again)}">${escape(say(locale, 'verify.again'))}</a></p>` : '';
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escape(say(locale, 'verify.title'))}</title>
<style>
body{margin:0;background:#313338;color:#dbdee1;font:16px/1.5 system-ui,sans-serif}
main{max-width:34rem;margin:0 auto;padding:1.5rem 1rem}
h1{font-size:1.3rem;margin:0 0 .75rem;color:#f2f3f5}
h2{font-size:1rem;margin:1.25rem 0 .25rem;color:#f2f3f5}
.lead{padding:.75rem 1rem;border-radius:8px;background:#2b2d31;border-left:4px solid ${page.ok ? '#23a559' : '#f0b232'}}
ul{margin:0;padding-left:1.25rem}
li{margin:.25rem 0;overflow-wrap:anywhere}
.button{display:inline-block;margin-top:1rem;padding:.6rem 1rem;border-radius:6px;background:#5865f2;color:#fff;text-decoration:none}
.note{color:#949ba4;font-size:.9rem;margin-top:1.5rem}
</style>
</head>
<body><main>
<h1>${escape(say(locale, 'verify.title'))}</h1>
<p class="lead">${escape(page.lead)}</p>
${sections}${again}
<p class="note">${escape(say(locale, 'verify.close'))}</p>
</main></body>
</html>
`;
}
