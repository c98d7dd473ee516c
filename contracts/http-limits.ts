// Limits both servers enforce on what crosses the wire, so the gateway's proxy refuses exactly what
// the backend behind it would.

/**
 * Largest JSON body any API accepts (rest, auth, management, storage's JSON routes): a year of a
 * student's backups fits with room to spare. Storage uploads have their own, larger limit.
 */
export const JSON_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
