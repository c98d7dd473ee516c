// What localbase does not offer, refused as GoTrue refuses it when the feature is turned off (its
// own codes and messages, not a 404 of an unknown route), so that supabase-js reports the same
// error it would against a hosted project with the feature disabled: SAML SSO, OAuth and ID-token
// sign-in with external providers, Web3 wallets, PKCE code exchange (no flow is ever started) and
// manual identity linking.
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import type { AuthContext } from './context.ts';
import { AuthError, OAuthError, validationFailed } from './errors.ts';

const samlDisabled = () => new AuthError(404, 'saml_provider_disabled', 'SAML 2.0 is disabled');
const manualLinkingDisabled = () => new AuthError(404, 'manual_linking_disabled', 'Manual linking is disabled');
const providerDisabled = (issuer: string) =>
  new AuthError(400, 'provider_disabled', `Provider (issuer ${JSON.stringify(issuer)}) is not enabled`);

/** The issuers GoTrue assigns to the ID-token providers it knows without reading the token. */
const FIXED_ISSUERS: Record<string, string> = {
  google: 'https://accounts.google.com',
  facebook: 'https://www.facebook.com',
  kakao: 'https://kauth.kakao.com',
  vercel_marketplace: 'https://marketplace.vercel.com',
  snapchat: 'https://accounts.snapchat.com',
  // Without a configured Keycloak URL its issuer is empty.
  keycloak: '',
};
const APPLE_ISSUERS = ['https://appleid.apple.com', 'https://account.apple.com'];
const AZURE_ISSUER_PREFIXES = ['https://login.microsoftonline.com/', 'https://sts.windows.net/'];

function text(body: unknown, key: string): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : '';
}

/** The `iss` of an ID token read without verifying it, as GoTrue detects Apple's and Azure's issuer. */
function unverifiedIssuer(idToken: string): string | undefined {
  try {
    const { iss } = decodeJwt(idToken);
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

/** grant_type=id_token (signInWithIdToken, and linkIdentity with an ID token): no provider is enabled. */
export function refuseIdTokenGrant(body: unknown): never {
  const idToken = text(body, 'id_token');
  const provider = text(body, 'provider');
  const issuer = text(body, 'issuer');
  if (!idToken) throw new OAuthError('invalid request', 'id_token required');
  if (!provider && (!text(body, 'client_id') || !issuer)) {
    throw new OAuthError('invalid request', 'provider or client_id and issuer required');
  }
  if (provider === 'apple' || APPLE_ISSUERS.includes(issuer)) {
    const detected = unverifiedIssuer(idToken);
    if (detected === undefined) throw validationFailed('Unable to detect issuer in ID token for Apple provider');
    if (!APPLE_ISSUERS.includes(detected))
      throw validationFailed('Detected ID token issuer is not an Apple ID token issuer');
    if (issuer && issuer !== detected) throw validationFailed('Provided issuer does not match ID token issuer');
    throw providerDisabled(detected);
  }
  if (provider === 'azure' || AZURE_ISSUER_PREFIXES.some((prefix) => issuer.startsWith(prefix))) {
    const detected = unverifiedIssuer(idToken);
    if (detected === undefined) throw validationFailed('Unable to detect issuer in ID token for Azure provider');
    if (!AZURE_ISSUER_PREFIXES.some((prefix) => detected.startsWith(prefix))) {
      throw validationFailed('Detected ID token issuer is not an Azure ID token issuer');
    }
    if (issuer && issuer !== detected) throw validationFailed('Provided issuer does not match ID token issuer');
    throw providerDisabled(detected);
  }
  const known = Object.entries(FIXED_ISSUERS).find(([name, iss]) => provider === name || (iss && issuer === iss));
  if (known) throw providerDisabled(known[1]);
  if (provider.startsWith('custom:')) throw validationFailed('Custom OAuth providers are disabled');
  throw validationFailed(`Custom OIDC provider ${JSON.stringify(provider)} not allowed`);
}

/** grant_type=web3 (signInWithWeb3): neither Solana nor Ethereum is enabled. */
export function refuseWeb3Grant(): never {
  throw new AuthError(422, 'web3_provider_disabled', 'Web3 provider is disabled');
}

/** grant_type=pkce (exchangeCodeForSession): no flow is ever started here, so no code is valid. */
export function refusePkceGrant(body: unknown): never {
  if (!text(body, 'auth_code') || !text(body, 'code_verifier')) {
    throw validationFailed('invalid request: both auth code and code verifier should be non-empty');
  }
  throw new AuthError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found');
}

export async function refusalRoutes(app: FastifyInstance, context: AuthContext): Promise<void> {
  // signInWithSSO, and the SAML endpoints an identity provider would call.
  for (const url of ['/sso', '/sso/saml/metadata', '/sso/saml/acs']) {
    app.route({
      method: url === '/sso/saml/metadata' ? 'GET' : 'POST',
      url,
      handler: async () => {
        throw samlDisabled();
      },
    });
  }
  app.all('/admin/sso/providers', async (request) => {
    await context.requireServiceRole(request);
    throw samlDisabled();
  });
  app.all('/admin/sso/providers/:id', async (request) => {
    await context.requireServiceRole(request);
    throw samlDisabled();
  });

  // linkIdentity (OAuth) and unlinkIdentity: GoTrue checks the session first, then the setting.
  app.get('/user/identities/authorize', async (request) => {
    await context.signedInUser(request);
    throw manualLinkingDisabled();
  });
  app.delete('/user/identities/:id', async (request) => {
    await context.signedInUser(request);
    throw manualLinkingDisabled();
  });

  // signInWithOAuth sends the browser here; no external provider is enabled.
  app.get('/authorize', async () => {
    throw validationFailed('Unsupported provider: provider is not enabled');
  });
}
