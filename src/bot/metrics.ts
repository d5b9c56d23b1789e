// The bot's Prometheus metrics (METRICS_PORT): interactions by kind and outcome and their latency
// (from the router, the one error boundary), lookups by cache result and requests to the stats
// service by outcome (from the lookup client's one cache-aside path), Discord REST requests waiting
// or in flight, cards, and Node's own (memory, event loop delay, GC). Every label comes from a fixed
// set: never a player name, a command's text or an id, or the series would grow for weeks.
import type { REST } from 'discord.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

import type { CardRenderer } from '../cards/index.js';
import type { EndpointKind } from '../catalog/index.js';
import type { LookupObserver } from '../lookup/client.js';
import type { LookupErrorKind } from '../lookup/errors.js';
import type { Gateway } from './gateway.js';

export const INTERACTION_KINDS = ['command', 'autocomplete', 'component'] as const;
export type InteractionKind = (typeof INTERACTION_KINDS)[number];

/** What became of an interaction; anything the router reports outside this list counts as `other`. */
export const INTERACTION_OUTCOMES = [
  'reply',
  'notice',
  'deferred',
  'update',
  'answered',
  'expired',
  'closing',
  'unknown_command',
  'not_ours',
  'nothing_picked',
  'too_late',
  'replayed',
  'gone',
  'store_unavailable',
  'failed',
  'other',
] as const;
export type InteractionOutcome = (typeof INTERACTION_OUTCOMES)[number];

/** What the router tells the metrics, once per interaction. Cheap, never throws. */
export interface InteractionObserver {
  interaction(kind: InteractionKind, outcome: string, seconds: number): void;
}

const KNOWN_OUTCOMES = new Set<string>(INTERACTION_OUTCOMES);

/** The router's outcome words (`unknown command`) as a label from the fixed set. */
export function outcomeLabel(outcome: string): InteractionOutcome {
  const label = outcome.replaceAll(' ', '_');
  return (KNOWN_OUTCOMES.has(label) ? label : 'other') as InteractionOutcome;
}

export interface BotMetrics {
  registry: Registry;
  interactions: InteractionObserver;
  lookups: LookupObserver;
  /**
   * Follows discord.js' REST clients (the gateway client's or an HTTP worker's, and the one that
   * posts to channels): requests waiting or in flight, finished, rate limited. Called once. Returns
   * what counts the interaction callbacks sent beside discord.js (src/bot/direct-callbacks.ts).
   */
  watchRest(...rests: REST[]): (ok: boolean) => void;
  /** Follows the gateway connection: up or not, its heartbeat round trip (gateway mode). */
  watchGateway(gateway: Pick<Gateway, 'up' | 'ping'>): void;
  /** Follows the card renderer's counts. */
  watchCards(cards: CardRenderer): void;
}

/** Latency buckets in seconds: Discord's 3 s is what matters; a cache hit is well under 10 ms. */
const INTERACTION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.8, 1, 2, 3, 5];
const UPSTREAM_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createBotMetrics(): BotMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const interactions = new Counter({
    name: 'bot_interactions_total',
    help: 'Interactions handled, by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'bot_interaction_duration_seconds',
    help: 'From reading an interaction to its answer sent (the reply, or the edit after a deferral), by kind.',
    labelNames: ['kind'] as const,
    buckets: INTERACTION_BUCKETS,
    registers: [registry],
  });
  const cache = new Counter({
    name: 'bot_lookup_cache_total',
    help: 'Lookups by how they were answered: hit (cache), miss (the stats service), stale (an expired copy, the service failing).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const upstream = new Counter({
    name: 'bot_upstream_requests_total',
    help: 'Requests to the stats service, by endpoint kind and outcome (ok or the error kind).',
    labelNames: ['endpoint', 'outcome'] as const,
    registers: [registry],
  });
  const upstreamLatency = new Histogram({
    name: 'bot_upstream_request_duration_seconds',
    help: 'Time of one request to the stats service, by endpoint kind.',
    labelNames: ['endpoint'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers: [registry],
  });

  // Children resolved once per label set: the hot path then costs a Map read and an add.
  const children = new Map<string, { count: ReturnType<typeof interactions.labels>; time: ReturnType<typeof latency.labels> }>();
  const hits = { hit: cache.labels('hit'), miss: cache.labels('miss'), stale: cache.labels('stale') };
  for (const kind of INTERACTION_KINDS) latency.labels(kind);

  return {
    registry,
    interactions: {
      interaction(kind, outcome, seconds) {
        const label = outcomeLabel(outcome);
        const key = `${kind}:${label}`;
        let child = children.get(key);
        if (!child) {
          child = { count: interactions.labels(kind, label), time: latency.labels(kind) };
          children.set(key, child);
        }
        child.count.inc();
        child.time.observe(seconds);
      },
    },
    lookups: {
      cache(result) {
        hits[result].inc();
      },
      upstream(endpoint: EndpointKind, outcome: 'ok' | LookupErrorKind, seconds: number) {
        upstream.labels(endpoint, outcome).inc();
        upstreamLatency.labels(endpoint).observe(seconds);
      },
    },
    watchRest(...rests) {
      let pending = 0;
      const requests = new Counter({
        name: 'bot_discord_rest_requests_total',
        help: 'Requests to Discord’s REST API finished, by result (ok or error).',
        labelNames: ['result'] as const,
        registers: [registry],
      });
      const rateLimited = new Counter({
        name: 'bot_discord_rest_rate_limited_total',
        help: 'Times a Discord REST request waited for a rate limit.',
        registers: [registry],
      });
      new Gauge({
        name: 'bot_discord_rest_queue_depth',
        help: 'Requests to Discord’s REST API waiting in its queue or in flight.',
        registers: [registry],
        collect() {
          this.set(pending);
        },
      });
      const ok = requests.labels('ok');
      const failed = requests.labels('error');
      // Every REST call of discord.js goes through `rest.request` (get, post, patch... call it): the
      // one place to count what waits in its queues, without reaching into their private state.
      for (const rest of rests) {
        const request = rest.request.bind(rest);
        rest.request = async (options) => {
          pending++;
          try {
            const result = await request(options);
            ok.inc();
            return result;
          } catch (e) {
            failed.inc();
            throw e;
          } finally {
            pending--;
          }
        };
        rest.on('rateLimited', () => rateLimited.inc());
      }
      return (sent) => (sent ? ok : failed).inc();
    },
    watchGateway(gateway) {
      new Gauge({
        name: 'bot_gateway_up',
        help: '1 while the gateway connection is ready, 0 otherwise.',
        registers: [registry],
        collect() {
          this.set(gateway.up() ? 1 : 0);
        },
      });
      new Gauge({
        name: 'bot_gateway_ping_seconds',
        help: 'The gateway heartbeat round trip.',
        registers: [registry],
        collect() {
          if (gateway.ping() >= 0) this.set(gateway.ping() / 1000);
        },
      });
    },
    watchCards(cards) {
      new Gauge({
        name: 'bot_cards',
        help: 'Card renderer counts since start: rendered, cache_hits, and failures by reason (busy, timeout, failed, closed); queued and cached now.',
        labelNames: ['what'] as const,
        registers: [registry],
        collect() {
          const s = cards.stats();
          this.set({ what: 'rendered' }, s.rendered);
          this.set({ what: 'cache_hits' }, s.cacheHits);
          for (const [reason, n] of Object.entries(s.failures)) this.set({ what: `failed_${reason}` }, n);
          this.set({ what: 'queued' }, s.queued);
          this.set({ what: 'cached' }, s.cached);
        },
      });
    },
  };
}
