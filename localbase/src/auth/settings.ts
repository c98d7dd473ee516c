// GET /settings: what GoTrue says it offers, with localbase's real values, so that a client
// (or an admin console pointed at either backend) can tell which sign-ins work before trying one.
// Every key GoTrue's handler answers is present: a provider localbase refuses is `false`.
import type { FastifyInstance } from 'fastify';

/** The external providers GoTrue lists, in its order; localbase enables none of them. */
const EXTERNAL_PROVIDERS = [
  'apple',
  'azure',
  'bitbucket',
  'discord',
  'facebook',
  'figma',
  'fly',
  'github',
  'gitlab',
  'google',
  'keycloak',
  'kakao',
  'linkedin',
  'linkedin_oidc',
  'nextcloud',
  'notion',
  'spotify',
  'slack',
  'slack_oidc',
  'workos',
  'twitch',
  'twitter',
] as const;

export interface AuthSettings {
  external: Record<string, boolean>;
  disable_signup: boolean;
  mailer_autoconfirm: boolean;
  phone_autoconfirm: boolean;
  sms_provider: string;
  saml_enabled: boolean;
}

export function authSettings(anonymousSignIns: boolean): AuthSettings {
  return {
    external: {
      anonymous_users: anonymousSignIns,
      ...Object.fromEntries(EXTERNAL_PROVIDERS.map((provider) => [provider, false])),
      email: true,
      // No phone sign-in and no SMS provider: phone factors and OTPs are refused.
      phone: false,
      zoom: false,
    },
    // POST /signup always creates accounts.
    disable_signup: false,
    // Sign-ups are confirmed at once (as the local CLI does). An address change still waits for
    // the links mailed to both addresses (or to the new one, with `double_confirm_changes = false`;
    // docs/localbase.md), which GoTrue with autoconfirm does not: a reader of this flag alone
    // assumes the less careful of the two.
    mailer_autoconfirm: true,
    phone_autoconfirm: false,
    sms_provider: '',
    saml_enabled: false,
  };
}

export async function settingsRoute(app: FastifyInstance, options: { anonymousSignIns: boolean }): Promise<void> {
  const settings = authSettings(options.anonymousSignIns);
  app.get('/settings', async () => settings);
}
