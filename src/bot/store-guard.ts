// The deadline of every call to the bot's stores (links, views, snapshots, members, the session
// feed), in one place: a call that fails, or does not answer in time, becomes what the user is told.
import { StoreUnavailableError } from '../../commands/index.js';
import type { TextKey } from '../locales/index.js';
import { within, type Within } from '../lookup/within.js';

/**
 * Runs a store call within `timeoutMs`. A failure is told as `told`; a call past its deadline as
 * `late`: a write that did not answer in time may still land (Redis answering after a stall), so
 * a write passes a `late` that does not say it was not made.
 */
export function storeGuard(timeoutMs: number, what: string) {
  return async <T>(work: () => Promise<T> | T, told: TextKey, late: TextKey = told): Promise<T> => {
    let result: Within<T>;
    try {
      result = await within(Promise.resolve().then(work), timeoutMs);
    } catch (e) {
      throw new StoreUnavailableError(told, { cause: e });
    }
    if (!result.done) throw new StoreUnavailableError(late, { cause: new Error(`${what} took longer than ${timeoutMs} ms`) });
    return result.value;
  };
}
