// `npm run bench:scale [-- --matches 10000,100000] [--shapes current,long-tail,corrections] [--stores sqlite,postgres] [--workers 2] [--runs 3]`:
// the service at scale, on generated datasets of three shapes (bench/scale-data.ts; nothing
// committed). For each size, shape and store: the import rate from a dataset file (matches and MB a
// second; into SQLite the median of `--runs` imports, with the slowest and fastest), the store's
// size, the first profile after the store is opened again (a start), and p50/p99 of each lookup for
// a typical and the busiest player, in process (no HTTP). 1,000,000 matches: `npm run bench:scale
// -- --matches 1000000 --runs 1` (slow, ~2 GB of dataset in a temporary directory). `--stores bot`:
// the real bot's autocomplete while its embedded service imports the dataset (bench/scale-bot.ts).
// Writes bench/results/scale-<sizes>.json and prints a table.
import { closeSync, createWriteStream, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

import pg from 'pg';

import type * as Import from '../src/service/import.js';
import type * as Lookups from '../src/service/lookups.js';
import type { LookupContext } from '../src/service/lookups.js';
import type * as Pg from '../src/service/pg-store.js';
import type { Store } from '../src/service/store-api.js';
import type * as Sqlite from '../src/service/store.js';
import { describeMachine, describeReferenceLoop } from './machine.js';
import { botWhileImporting } from './scale-bot.js';
import { SHAPES, benchPlayers, scaleLines, scalePlayer, type Shape } from './scale-data.js';

// The service as `npm run service` runs it: compiled (`prebench:scale` builds it), so that the
// import's worker threads load JavaScript, not TypeScript through a loader each.
const service = '../dist/src/service';
const { importFile, importWorkers } = (await import(`${service}/import.js`)) as typeof Import;
const { Memo, matchReport, matches, profile, search, segments, sessions } = (await import(`${service}/lookups.js`)) as typeof Lookups;
const { PgStore } = (await import(`${service}/pg-store.js`)) as typeof Pg;
const { StatsStore } = (await import(`${service}/store.js`)) as typeof Sqlite;

const { values: args } = parseArgs({
  options: {
    matches: { type: 'string', default: '10000,100000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    shapes: { type: 'string', default: SHAPES.join(',') },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    // Worker threads of an import beside its own (the service's default otherwise: one a core after the first).
    workers: { type: 'string' },
    runs: { type: 'string', default: '3' },
  },
});
const workersArg = args.workers === undefined ? undefined : Number(args.workers);
if (workersArg !== undefined && !(Number.isInteger(workersArg) && workersArg >= 0)) {
  process.stderr.write(`--workers takes a whole number of threads (0: stage in the importing thread alone), not ${JSON.stringify(args.workers)}\n`);
  process.exit(2);
}
const runs = Number(args.runs);
if (!(Number.isInteger(runs) && runs >= 1)) {
  process.stderr.write(`--runs takes how many times to import into SQLite (1 or more), not ${JSON.stringify(args.runs)}\n`);
  process.exit(2);
}
const sizes = args.matches.split(',').map(Number);
const kinds = args.stores.split(',') as ('sqlite' | 'postgres' | 'bot')[];
const shapes = args.shapes.split(',') as Shape[];
for (const shape of shapes)
  if (!SHAPES.includes(shape)) {
    process.stderr.write(`--shapes takes ${SHAPES.join(', ')}, not ${JSON.stringify(shape)}\n`);
    process.exit(2);
  }

interface Row {
  /** The size, with the dataset's shape when it is not the current one. */
  matches: number | string;
  store: string;
  figure: string;
  value: number;
  unit: string;
  target?: string;
}
const rows: Row[] = [];
const record = (r: Row) => {
  rows.push(r);
  process.stderr.write(`  ${r.matches} ${r.store} · ${r.figure}: ${r.value} ${r.unit}${r.target ? ` (target ${r.target})` : ''}\n`);
};

const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;
function quantiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return { p50: round(q(0.5), 3), p99: round(q(0.99), 3) };
}
async function time(n: number, f: (i: number) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f(i);
    samples.push(performance.now() - t);
  }
  return quantiles(samples);
}

async function writeDataset(path: string, matches: number, lines: Iterable<string> = scaleLines(matches)): Promise<void> {
  const out = createWriteStream(path);
  for (const line of lines) if (!out.write(`${line}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  // On disk before the import is timed: the kernel writing a 2 GB file back meanwhile took CPU
  // time from it (a dataset exists before it is imported).
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function openStore(kind: 'sqlite' | 'postgres', dir: string, schema: string): Promise<Store> {
  return kind === 'sqlite' ? new StatsStore(join(dir, 'store.sqlite')) : PgStore.open({ url: args.pg, schema, statementTimeoutMs: 120_000 });
}

async function storeMb(kind: 'sqlite' | 'postgres', dir: string, schema: string): Promise<number> {
  if (kind === 'sqlite')
    return round(
      readdirSync(dir)
        .filter((f) => f.startsWith('store.sqlite'))
        .reduce((n, f) => n + statSync(join(dir, f)).size, 0) /
        2 ** 20,
      1,
    );
  const client = new pg.Client(args.pg);
  await client.connect();
  const { rows: r } = await client.query<{ bytes: string }>(
    "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
    [schema],
  );
  await client.end();
  return round(Number(r[0]?.bytes ?? 0) / 2 ** 20, 1);
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client(args.pg);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  await client.end();
}

async function measure(n: number, kind: 'sqlite' | 'postgres', data: string, shape: Shape): Promise<void> {
  const label = shape === 'current' ? n : `${n} ${shape}`;
  const dir = mkdtempSync(join(tmpdir(), `scale-${kind}-`));
  const schema = `scale_${n}_${process.pid}`;
  try {
    let store = await openStore(kind, dir, schema);
    const workers = importWorkers(workersArg);
    // One import's time moves with a shared machine from one run to the next: SQLite's are repeated,
    // each into a new store, and the median one reported, with the slowest and fastest.
    const imports: { seconds: number; staged: number; cpuSeconds: number }[] = [];
    for (let run = 0; run < (kind === 'sqlite' ? runs : 1); run++) {
      if (run > 0) {
        await store.close();
        for (const f of readdirSync(dir)) rmSync(join(dir, f));
        store = await openStore(kind, dir, schema);
      }
      const started = performance.now();
      const cpu = process.cpuUsage();
      // The lines are staged once the file is read whole; the store's transaction follows.
      let staged = 0;
      const onBytes = (read: number, total: number) => {
        if (read === total && !staged) staged = (performance.now() - started) / 1000;
      };
      const summary = await importFile(store, data, { workers, onBytes });
      const used = process.cpuUsage(cpu);
      if (summary.refused > 0) throw new Error(`the generated dataset was refused: ${JSON.stringify(summary.refusedLines[0])}`);
      imports.push({ seconds: (performance.now() - started) / 1000, staged, cpuSeconds: (used.user + used.system) / 1e6 });
    }
    imports.sort((a, b) => a.seconds - b.seconds);
    const { seconds, staged, cpuSeconds } = imports[Math.floor(imports.length / 2)] ?? { seconds: NaN, staged: 0, cpuSeconds: NaN };
    record({
      matches: label,
      store: kind,
      // The median import's (bench/run.ts reads this figure by its name).
      figure: 'import',
      value: Math.round(n / seconds),
      unit: 'matches/s',
      target: kind === 'sqlite' ? '>= 10000' : undefined,
    });
    if (imports.length > 1) {
      record({ matches: label, store: kind, figure: 'import, the slowest', value: Math.round(n / (imports.at(-1)?.seconds ?? NaN)), unit: 'matches/s' });
      record({ matches: label, store: kind, figure: 'import, the fastest', value: Math.round(n / (imports[0]?.seconds ?? NaN)), unit: 'matches/s' });
    }
    record({ matches: label, store: kind, figure: 'import, dataset read', value: round(statSync(data).size / 2 ** 20 / seconds, 1), unit: 'MB/s' });
    record({ matches: label, store: kind, figure: 'import, wall time', value: round(seconds, 1), unit: 's' });
    record({ matches: label, store: kind, figure: 'import, threads staging', value: workers + 1, unit: '' });
    if (staged) {
      // Where the time went: the staging (every core), then the store's transaction.
      record({ matches: label, store: kind, figure: 'import, lines staged', value: round(staged, 1), unit: 's' });
      record({ matches: label, store: kind, figure: "import, the store's transaction", value: round(seconds - staged, 1), unit: 's' });
    }
    // On a shared machine the wall clock counts others' work too; this process's CPU time does not
    // (for PostgreSQL it leaves out the server's share).
    record({ matches: label, store: kind, figure: 'import, per CPU second of the importing process', value: Math.round(n / cpuSeconds), unit: 'matches/s' });
    // Beside the rates: how busy the machine was (the 1-minute load average as the import ended).
    record({ matches: label, store: kind, figure: 'load average as the import ended', value: round(loadavg()[0] ?? 0, 1), unit: `on ${cpus().length} cores` });
    await store.close();
    record({ matches: label, store: kind, figure: 'store size', value: await storeMb(kind, dir, schema), unit: 'MB' });

    // A start: the store opened again, the first profile (the busiest player's title) cold.
    const opened = performance.now();
    store = await openStore(kind, dir, schema);
    const ctx: LookupContext = { store, now: () => Date.now() };
    const { heavy, typical } = benchPlayers(n, shape);
    const first = performance.now();
    const typicalA = scalePlayer('title_a', typical, shape);
    await profile(ctx, new Memo(), 'title_a', typicalA.platform as never, typicalA.id, true);
    record({
      matches: label,
      store: kind,
      figure: 'first profile after a start (typical player)',
      value: round(performance.now() - first),
      unit: 'ms',
      target: '< 50 at 1M',
    });
    record({ matches: label, store: kind, figure: 'opening the store', value: round(first - opened), unit: 'ms' });

    const ids = (await store.sql("SELECT id FROM matches WHERE title = 'title_a' AND platform = 'pc_store_a' LIMIT 200")).map((r) => String(r.id));
    // The busiest player's first profile reads what their matches hold from every row; SQLite keeps
    // it for the next time (until an import changes the player), so the cold figures below do not.
    const busiest = scalePlayer('title_a', heavy, shape);
    const firstHeavy = performance.now();
    await profile(ctx, new Memo(), 'title_a', busiest.platform as never, busiest.id, true);
    record({ matches: label, store: kind, figure: 'profile, heavy, the first after the import', value: round(performance.now() - firstHeavy, 3), unit: 'ms' });
    for (const [who, rank, reps] of [
      ['typical', typical, 100],
      ['heavy', heavy, 5],
    ] as const) {
      const a = scalePlayer('title_a', rank, shape);
      const b = scalePlayer('title_b', rank, shape);
      const pa = a.platform as never;
      const cases: [string, (i: number) => Promise<unknown>, number][] = [
        ['profile, cold', () => profile(ctx, new Memo(), 'title_a', pa, a.id, true), reps],
        ['segments map, cold', () => segments(ctx, new Memo(), 'title_a', pa, a.id, 'map', {}), reps],
        ['matches, first page', () => matches(ctx, 'title_a', pa, a.id), 100],
        ['sessions (title_b), cold', () => sessions(ctx, new Memo(), 'title_b', b.platform as never, b.id), reps],
      ];
      for (const [name, f, count] of cases) {
        const q = await time(count, f);
        record({ matches: label, store: kind, figure: `${name}, ${who} p50`, value: q.p50, unit: 'ms' });
        record({ matches: label, store: kind, figure: `${name}, ${who} p99`, value: q.p99, unit: 'ms' });
      }
    }
    // title_a's pc_store_a players (every third rank) have vanity names `va<rank>`.
    const vanity = `va${typical - (typical % 3)}`;
    const warmMemo = new Memo();
    await profile(ctx, warmMemo, 'title_a', 'pc_store_a', vanity, true);
    const flat: [string, (i: number) => Promise<unknown>][] = [
      ['match report', (i) => matchReport(ctx, 'title_a', 'pc_store_a', ids[i % ids.length] ?? 'a-0')],
      ['profile by vanity name (resolution + warm profile)', () => profile(ctx, warmMemo, 'title_a', 'pc_store_a', vanity, true)],
      ['search by handle prefix', () => search(ctx, 'title_c', 'pc_store_c', 'Player c1')],
    ];
    for (const [name, f] of flat) {
      const q = await time(500, f);
      record({
        matches: label,
        store: kind,
        figure: `${name} p50`,
        value: q.p50,
        unit: 'ms',
        target: name.startsWith('search') ? undefined : 'well under 1 ms at 1M',
      });
      record({ matches: label, store: kind, figure: `${name} p99`, value: q.p99, unit: 'ms' });
    }
    // Into the store as it is: a tenth as many new matches, then a tenth replacing stored ones (the
    // same ids, other numbers): what each costs should be what it imports, not what is stored.
    // SQLite only (a PostgreSQL import of that size takes minutes here).
    const tenth = Math.max(1, Math.round(n / 10));
    const more = (seed: number, rename: boolean) =>
      (function* () {
        for (const line of scaleLines(tenth, seed)) if (line.includes('"type":"match"')) yield rename ? line.replace(/"id":"(\w)-/, '"id":"$1-n') : line;
      })();
    for (const [what, lines] of (kind === 'postgres' || shape !== 'current'
      ? []
      : [
          ['new', more(12, true)],
          ['replacing stored ones', more(13, false)],
        ]) as [string, Iterable<string>][]) {
      const file = join(dir, `more-${what.replaceAll(' ', '-')}.jsonl`);
      await writeDataset(file, tenth, lines);
      const t = performance.now();
      const c = process.cpuUsage();
      await importFile(store, file);
      const u = process.cpuUsage(c);
      const figure = `import into the full store, ${tenth} matches ${what}`;
      record({ matches: label, store: kind, figure, value: Math.round(tenth / ((performance.now() - t) / 1000)), unit: 'matches/s' });
      record({ matches: label, store: kind, figure: `${figure}, per CPU second`, value: Math.round(tenth / ((u.user + u.system) / 1e6)), unit: 'matches/s' });
    }
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (kind === 'postgres') await dropSchema(schema).catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const machine = `${await describeMachine()} (at the start)`;
  process.stderr.write(`scale bench on ${machine}\n`);
  for (const n of sizes)
    for (const shape of shapes) {
      const dir = mkdtempSync(join(tmpdir(), 'scale-data-'));
      const label = shape === 'current' ? n : `${n} ${shape}`;
      try {
        const data = join(dir, `matches-${n}.jsonl`);
        await writeDataset(data, n, scaleLines(n, 11, shape));
        record({ matches: label, store: '-', figure: 'dataset file', value: round(statSync(data).size / 2 ** 20, 1), unit: 'MB' });
        for (const kind of kinds)
          if (kind === 'bot') {
            if (shape === 'current') await botWhileImporting(data, n, (f) => record({ matches: n, store: 'bot', ...f }));
          } else await measure(n, kind, data, shape);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/scale-${sizes.join('-')}.json`, JSON.stringify({ machine, at: new Date().toISOString(), rows }, null, 2));
  // Side by side: one line per figure, one column per size and store.
  const columns = [...new Set(rows.filter((r) => r.store !== '-').map((r) => `${r.matches} ${r.store}`))];
  const figures = [...new Set(rows.filter((r) => r.store !== '-').map((r) => r.figure))];
  const lines = [`| figure | ${columns.join(' | ')} | target |`, `|---|${columns.map(() => '---|').join('')}---|`];
  for (const f of figures) {
    const cells = columns.map((c) => {
      const r = rows.find((x) => `${x.matches} ${x.store}` === c && x.figure === f);
      return r ? `${r.value} ${r.unit}` : '';
    });
    lines.push(`| ${f} | ${cells.join(' | ')} | ${rows.find((x) => x.figure === f && x.target)?.target ?? ''} |`);
  }
  // The machine's speed moves over a long run: the reference loop again, at the end.
  const atEnd = `at the end ${describeReferenceLoop()}, load average ${loadavg()
    .map((l) => round(l, 1))
    .join(' ')}`;
  process.stdout.write(`${machine}; ${atEnd}\n\n${lines.join('\n')}\n`);
}

await main();
