// Request body limits, chosen to agree end to end with what the backend accepts (localbase takes
// JSON up to 16 MiB and uploads up to 50 MiB): a body the gateway lets through is never refused
// downstream for its size. Every refusal is 413 `payload_too_large` with `limit_bytes`.
import { JSON_BODY_LIMIT_BYTES } from '#contracts/http-limits.ts';

const MiB = 1024 * 1024;

export const BODY_LIMITS = {
  /** Every JSON route without a limit of its own (Fastify's app-wide bodyLimit). */
  json: 1 * MiB,
  /** /__errors: "capped at 1 MB per request". */
  errorReport: 1 * MiB,
  /** /__auth/profile: an avatar arrives as a data URL (2 MiB of image is 2.7 MiB of base64). */
  profile: 4 * MiB,
  /** /__auth/backup, /snapshot, /import: a year of sessions, tasks and settings fits many times over. */
  backup: 8 * MiB,
  /** /__backend/*: the largest storage upload a bucket accepts. */
  proxy: 50 * MiB,
  /**
   * /__backend/* with a JSON body: what the backend's JSON APIs accept. Refused here, before
   * forwarding, because a backend that refuses a body before reading it closes the connection, and
   * its 413 is then lost on the way back.
   */
  proxyJson: JSON_BODY_LIMIT_BYTES,
};

/** "8 MiB" for 8388608, "1000 bytes" for 1000: how a limit reads in a message. */
export function describeBytes(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
