// A store for @fastify/rate-limit whose counts every server of a district shares: each hit is one
// atomic upsert on its window in the database (gateway_hit_rate_window), so N servers behind a load
// balancer allow what one allows. The window opens at its first hit and lasts timeWindow, as the
// plugin's own in-memory store counts; its clock is the database's, which every server shares.
// Keys are stored as digests (they hold client addresses).
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { z } from 'zod';
import { sharedKey, type SharedState } from '../district/shared-state.ts';

const hit = z.object({ hits: z.number().int().positive(), ttl_ms: z.number().int().nonnegative() });

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** The store class the plugin takes (`store:` option). */
export function sharedRateLimitStore(state: SharedState): FastifyRateLimitStoreCtor {
  return class SharedRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: IncrCallback, timeWindow: number): void {
      state.call('gateway_hit_rate_window', { p_key: sharedKey('rate-limit', key), p_window_ms: timeWindow }).then(
        (answer) => {
          const counted = hit.parse(answer);
          callback(null, { current: counted.hits, ttl: counted.ttl_ms });
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    /** Limiters share one store: their keys already name their family. */
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
