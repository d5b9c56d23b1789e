// Starts the real stats service on an ephemeral loopback port for a test file.
import { demoLines } from '../../src/service/demo.js';
import { importLines } from '../../src/service/import.js';
import { startStatsServer, type ServiceOptions } from '../../src/service/server.js';
import { StatsStore } from '../../src/service/store.js';

export interface TestService {
  url: string;
  store: StatsStore;
  /** GET (or another method) a path; the body parsed as JSON when it is JSON. */
  request(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: unknown; text: string }>;
  close(): Promise<void>;
}

export async function startService(
  lines: Iterable<string> = demoLines(),
  options: Omit<ServiceOptions, 'store'> = {},
): Promise<TestService> {
  const store = new StatsStore();
  const summary = await importLines(store, lines);
  if (summary.refused > 0) throw new Error(`fixture refused: ${JSON.stringify(summary.refusedLines)}`);
  const running = await startStatsServer({ store, ...options });
  return {
    url: running.url,
    store,
    async request(path, init) {
      const res = await fetch(running.url + path, init);
      const text = await res.text();
      let body: unknown = undefined;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: res.status, headers: res.headers, body, text };
    },
    async close() {
      await running.close();
      await store.close();
    },
  };
}
