// On Node 20 a worker thread cannot import TypeScript through the loader the process was started
// with (`tsx`: a worker given the process's options loads it, which delays its start, and still
// cannot), so our workers start without those options (`execArgv: []`) from a plain entry module,
// which loads its code through this: the compiled module beside it when built (`npm run build`,
// dist/), else the TypeScript one through tsx's API (tests, `npm run preview`).
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

/**
 * The module `name` beside `base` (an `import.meta.url`): `name.js` when there is one, else `name.ts`.
 * @param {string} base
 * @param {string} name
 * @returns {Promise<unknown>}
 */
export async function importBeside(base, name) {
  const compiled = new URL(`./${name}.js`, base);
  if (existsSync(compiled)) return import(compiled.href);
  const { tsImport } = await import('tsx/esm/api');
  return tsImport(`./${name}.ts`, base);
}
