// The link in a mail (and generate_link's action_link), as GoTrue writes it.

/** Characters a query value keeps as they are: a plain URL is written into the link unencoded. */
const PLAIN_QUERY_VALUE = /^[A-Za-z0-9\-._~:/?@!$'()*,;]*$/;

/**
 * `<base>/verify?token=...&type=...&redirect_to=...`, where `type` is the verify type (`recovery`,
 * `email_change`, ...). `redirect_to` is copied as it is unless it holds a character that would
 * change the query (GoTrue encodes it only for `&`, `=` or `#`; here also for `+`, `%`, spaces and
 * anything beyond ASCII), so apps that look for their plain redirect URL in the link find it.
 */
export function verifyLink(base: string, secret: string, type: string, redirectTo: string): string {
  const redirect = PLAIN_QUERY_VALUE.test(redirectTo) ? redirectTo : encodeURIComponent(redirectTo);
  return `${base}/verify?token=${secret}&type=${type}&redirect_to=${redirect}`;
}
