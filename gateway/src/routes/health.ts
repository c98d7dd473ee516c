// GET /api/health: this server and the backend, measured at most every 15 s. The backend probe is
// bounded to 2 s; while one is in flight every caller shares it, and once a measurement exists a
// stale one is answered at once while the next probe runs in the background.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthAnswer } from '#contracts/gateway-answers.ts';
import { withErrorBody } from '../route-schemas.ts';

export const HEALTH_CACHE_MS = 15_000;
export const BACKEND_PROBE_TIMEOUT_MS = 2_000;

export interface BackendHealth {
  status: 'up' | 'down';
  latency_ms: number;
  http_status: number | null;
  error: string | null;
}

/** The database behind the embedded localbase, as /api/health names it (absent with a hosted backend). */
export interface DatabaseFacts {
  /** "PostgreSQL 15.18 (embedded)", "PGlite 0.5.14 (PostgreSQL 18.6)", "PostgreSQL 15.8 at DATABASE_URL". */
  engine: string;
  /** Why it is not the default engine, in one sentence; null when it is. */
  notice: string | null;
  /** PGlite kept because DATA_DIR holds a PGlite database: `npm run db:move-to-postgres` moves it. */
  legacy_pglite: boolean;
}

export interface HealthOptions {
  backendUrl: string;
  database?: DatabaseFacts;
  anonKey: string;
  probeTimeoutMs?: number;
  cacheMs?: number;
  /**
   * Measure once as soon as the server is ready, so the first health check (a launcher, a monitor,
   * the app's status line) finds a measurement instead of waiting for the probe.
   */
  measureAtStart?: boolean;
}

export async function probeBackend(backendUrl: string, anonKey: string, timeoutMs: number): Promise<BackendHealth> {
  const started = performance.now();
  try {
    const response = await fetch(`${backendUrl}/auth/v1/health`, {
      headers: { apikey: anonKey },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    const latency = Math.round(performance.now() - started);
    return {
      status: response.ok ? 'up' : 'down',
      latency_ms: latency,
      http_status: response.status,
      error: response.ok ? null : `HTTP ${response.status}`,
    };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return {
      status: 'down',
      latency_ms: Math.round(performance.now() - started),
      http_status: null,
      error: timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message,
    };
  }
}

interface Measurement {
  backend: BackendHealth;
  measuredAt: number;
}

/** The health cache: the only state of this route family. */
class HealthCache {
  private latest: Measurement | undefined;
  private inFlight: Promise<Measurement> | undefined;

  constructor(
    private readonly measure: () => Promise<BackendHealth>,
    private readonly maxAgeMs: number,
  ) {}

  async read(): Promise<{ measurement: Measurement; cached: boolean }> {
    const now = Date.now();
    if (this.latest && now - this.latest.measuredAt < this.maxAgeMs) return { measurement: this.latest, cached: true };
    const refresh = this.refresh();
    if (this.latest) return { measurement: this.latest, cached: true }; // stale but instant; refresh runs on
    return { measurement: await refresh, cached: false };
  }

  private refresh(): Promise<Measurement> {
    this.inFlight ??= this.measure()
      .then((backend) => (this.latest = { backend, measuredAt: Date.now() }))
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }
}

const health: FastifyPluginAsyncZod<HealthOptions> = async (app, options) => {
  const timeoutMs = options.probeTimeoutMs ?? BACKEND_PROBE_TIMEOUT_MS;
  const cache = new HealthCache(
    () => probeBackend(options.backendUrl, options.anonKey, timeoutMs),
    options.cacheMs ?? HEALTH_CACHE_MS,
  );
  const startedAt = Date.now();
  if (options.measureAtStart) app.addHook('onReady', async () => void cache.read());

  app.get('/api/health', { schema: { response: withErrorBody({ 200: healthAnswer }) } }, async (_request, reply) => {
    const { measurement, cached } = await cache.read();
    reply.header('cache-control', 'no-store');
    return {
      ok: measurement.backend.status === 'up',
      server: { status: 'up' as const, uptime_s: Math.round((Date.now() - startedAt) / 1000) },
      backend: measurement.backend,
      ...(options.database ? { database: options.database } : {}),
      measured_at: new Date(measurement.measuredAt).toISOString(),
      cached,
      max_age_s: Math.round((options.cacheMs ?? HEALTH_CACHE_MS) / 1000),
    };
  });
};

export default health;
