// Secrets never reach a log. Every serialized log line, of the gateway and of the localbase running in
// the same process, passes through redactLogLine before it is written to the terminal or to
// server.log, so the rule holds whatever a log call puts in its object or message:
//   - values of credential keys at any depth: authorization, apikey, cookie, set-cookie, password,
//     and tokens (access_token, refresh_token, token, provider_token ...);
//   - the same names as query parameters in any URL (realtime clients put `apikey` and
//     `access_token` in the WebSocket URL, GoTrue links carry `token`);
//   - anything shaped like a JWT (three base64url parts, the first starting `eyJ`), wherever it is:
//     the anon and service-role keys and every access token are JWTs.

export const REDACTED = '[redacted]';

/** Header and field names whose values are credentials. */
export const SECRET_KEYS = [
  'authorization',
  'proxy-authorization',
  'apikey',
  'x-api-key',
  'cookie',
  'set-cookie',
  'password',
  'access_token',
  'refresh_token',
  'provider_token',
  'provider_refresh_token',
  'token',
  'token_hash',
  'service_role_key',
  'anon_key',
] as const;

const keyAlternatives = SECRET_KEYS.map((key) => key.replace(/[-_]/g, '[-_]')).join('|');
// "key": "string" | ["string", ...] | number, in a JSON line (keys matched case-insensitively).
const jsonString = '"(?:[^"\\\\]|\\\\.)*"';
const secretJsonValue = new RegExp(
  `("(?:${keyAlternatives})"\\s*:\\s*)(${jsonString}|\\[(?:\\s*${jsonString}\\s*,?)*\\]|[\\w.+-]+)`,
  'gi',
);
// ?key=value or &key=value, up to the next separator or the end of a JSON string.
const secretQueryValue = new RegExp(`([?&](?:${keyAlternatives})=)[^&#\\s"\\\\]*`, 'gi');
const jwtShaped = /eyJ[\w-]*\.[\w-]+\.[\w-]*/g;

/** The line with every secret value replaced by [redacted]; the rest untouched. */
export function redactLogLine(line: string): string {
  return line
    .replace(secretJsonValue, `$1"${REDACTED}"`)
    .replace(secretQueryValue, `$1${REDACTED}`)
    .replace(jwtShaped, REDACTED);
}
