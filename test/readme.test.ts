// The docs' promises: every example request they show answers as it says (`$B` ones on the demo
// data, `$M` ones on the example dataset), every preview line runs, the README's reply is what the
// preview prints today, every setting is documented, and every link between the pages leads somewhere.
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseEnv } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { smallLines } from './fixtures/small-dataset.js';
import { runPreview } from './helpers/preview.js';
import { startService, type TestService } from './helpers/service.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(new URL('../docs', import.meta.url))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const examples = read('docs/stats-service.md')
  .split('\n')
  .map((line) => /^curl "\$([BM])([^"]+)"\s*(?:#\s*(\d{3})?.*)?$/.exec(line))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => ({ on: m[1] as 'B' | 'M', path: m[2] ?? '', status: Number(m[3] ?? 200) }));

const services: Partial<Record<'B' | 'M', TestService>> = {};
beforeAll(async () => {
  services.B = await startService();
  services.M = await startService(smallLines());
});
afterAll(async () => {
  await services.B?.close();
  await services.M?.close();
});

describe('the stats service’s example requests', () => {
  it('shows example requests for the demo and for the example dataset', () => {
    expect(examples.filter((e) => e.on === 'B').length).toBeGreaterThanOrEqual(12);
    expect(examples.filter((e) => e.on === 'M').length).toBeGreaterThanOrEqual(8);
  });

  it.each(examples)('$on $path answers $status', async ({ on, path, status }) => {
    const res = await services[on]!.request(path);
    expect(res.status, res.text.slice(0, 200)).toBe(status);
    expect(res.body).toHaveProperty(status === 200 ? 'data' : 'errors');
  });
});

/** `npm run preview -- [flags] "<command>"` lines, in README order (later ones rely on the /link and /track before them). */
const previews = read('docs/server-owners.md')
  .split('\n')
  .map((line) => /^npm run preview -- ((?:--[\w-]+(?: [^-"\s]\S*)? )*)"([^"]+)"/.exec(line))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => ({ flags: (m[1] ?? '').trim().split(/\s+/).filter(Boolean), command: m[2] ?? '' }));

describe('the preview examples', () => {
  it(
    'runs each in order, printing an embed or choices (errors are plain notices)',
    async () => {
      expect(previews.length).toBeGreaterThanOrEqual(5);
      const previewDb = join(mkdtempSync(join(tmpdir(), 'readme-preview-')), 'preview.sqlite');
      const cards = mkdtempSync(join(tmpdir(), 'readme-cards-'));
      for (const { flags, command } of previews) {
        // A card is written where the test says, not in the checkout.
        const args = flags.map((f, i) => (flags[i - 1] === '--card' ? join(cards, f) : f));
        // Looked up from the demo service this file runs rather than one embedded in each preview:
        // the same data, without building it again for every example (the next test runs one embedded).
        const run = await runPreview([...args, command], { PREVIEW_DB: previewDb, LOOKUP_BASE_URL: services.B!.url });
        expect(run.status, `${command}: ${run.stderr}`).toBe(0);
        expect(run.stdout.trim().length, command).toBeGreaterThan(0);
        if (flags.includes('--autocomplete')) expect(run.stdout, command).toMatch(/→/);
        else if (flags.includes('--json')) expect(() => JSON.parse(run.stdout) as unknown, command).not.toThrow();
        // /track answers with a private notice; every other command with an embed.
        else if (command.startsWith('/track')) expect(run.stdout, command).toMatch(/only you can see this/);
        else expect(run.stdout, command).toMatch(/┌─/);
        if (flags.includes('--card')) expect(readdirSync(cards), command).toContain(flags[flags.indexOf('--card') + 1]);
      }
      // Every kind of line the README shows is run: flags and all.
      expect(previews.filter((p) => p.flags.length > 0).length).toBeGreaterThanOrEqual(10);
    },
    20_000 * Math.max(6, previews.length),
  );
});

describe('README reply shown', () => {
  it('is what the preview prints for the first example today', async () => {
    const shown = /The profile above reads:\n\n```\n([\s\S]*?)\n```/.exec(readme)?.[1];
    expect(shown).toBeDefined();
    const first = previews[0]!;
    const previewDb = join(mkdtempSync(join(tmpdir(), 'readme-shown-')), 'preview.sqlite');
    // As a reader runs it: the embedded service on the demo data.
    const run = await runPreview([first.command], { PREVIEW_DB: previewDb });
    const normalise = (text: string) =>
      text
        .split('\n')
        .map((l) => l.trimEnd())
        .join('\n')
        .trim();
    expect(normalise(run.stdout)).toBe(normalise(shown ?? ''));
  }, 60_000);
});

describe('the docs as a newcomer meets them', () => {
  it('keep the README short: what it is, the two commands, putting it in a server, a map', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).toContain('npm test');
    for (const page of PAGES.filter((p) => p !== 'README.md')) expect(readme, page).toContain(`(${page})`);
  });

  it('document every setting .env.example names in the operators’ table', () => {
    const operators = read('docs/operators.md');
    for (const name of Object.keys(parseEnv(read('.env.example')))) expect(operators, name).toMatch(new RegExp(`^\\| [^|]*\`${name}\``, 'm'));
  });

  it('link only to pages and files that exist', () => {
    for (const page of PAGES) {
      for (const [, target] of read(page).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^https?:/.test(target!)) continue;
        expect(existsSync(join(dirname(page), target!)), `${page} links to ${target}`).toBe(true);
      }
    }
  });
});
