// Where an e-mail link may send the browser after verifying, as GoTrue's isRedirectURLValid: the
// site URL's own host, or a URL matching an entry of the allow list (GoTrue's uri_allow_list: globs
// where `*` stops at `.` and `/` and `**` does not). Anything else (a foreign site, a
// `javascript:` URL, garbage) is replaced by the site URL, so a link can never carry a session to
// a page its holder did not choose.
export interface RedirectPolicy {
  siteUrl: string;
  allowList: readonly string[];
}

function globToRegExp(glob: string): RegExp {
  let pattern = '';
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index] as string;
    if (char === '*' && glob[index + 1] === '*') {
      pattern += '.*';
      index += 1;
    } else if (char === '*') pattern += '[^./]*';
    else if (char === '?') pattern += '[^./]';
    else pattern += char.replace(/[\\^$.+()|[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

export function isAllowedRedirect(policy: RedirectPolicy, candidate: string): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  const site = new URL(policy.siteUrl);
  if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname === site.hostname) return true;
  return policy.allowList.some((entry) => globToRegExp(entry).test(candidate));
}

/** The redirect to use: the requested one when allowed, else the site URL. */
export function redirectOrSite(policy: RedirectPolicy, candidate: string | undefined | null): string {
  return candidate && isAllowedRedirect(policy, candidate) ? candidate : policy.siteUrl;
}
