// The project's one timeout helper: the router's reply budget, the client's deadlines and the
// stores' call deadlines all wait for a promise this way, never longer than they were given.

export type Within<T> = { done: true; value: T } | { done: false };

/** The promise's value, or `{ done: false }` once `ms` have passed; rejects only when the promise does. */
export function within<T>(work: Promise<T>, ms: number): Promise<Within<T>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve({ done: false }), Math.max(0, ms));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve({ done: true, value });
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** The promise's value, or a rejection naming `what` once `ms` have passed (a store call's deadline). */
export async function withTimeout<T>(work: Promise<T>, ms: number, what = 'cache operation'): Promise<T> {
  const result = await within(work, ms);
  if (!result.done) throw new Error(`${what} took longer than ${ms} ms`);
  return result.value;
}
