// How a backend failure reads to the gateway's caller: an expired or foreign token is the caller's
// problem (401), a missing backend is ours (502), a conflict stays a conflict.
import { GatewayError } from '../http-errors.ts';
import type { BackendError } from './backend-client.ts';

export function toGatewayError(error: BackendError): GatewayError {
  if (error.code === 'bad_jwt' || error.code === 'no_authorization' || error.code === 'session_not_found' || error.code === 'PGRST301' || error.code === 'PGRST303') {
    return new GatewayError(401, 'invalid_token', 'The access token is missing, invalid or expired; sign in again.');
  }
  if (error.code === 'backend_unavailable') return new GatewayError(502, 'backend_unavailable', error.message);
  if (error.code === 'service_key_missing') return new GatewayError(503, 'service_key_missing', error.message);
  if (error.status === 409 || error.code === '23505') return new GatewayError(409, 'conflict', error.message, { backend_code: error.code });
  if (error.status === 401 || error.status === 403) {
    return new GatewayError(403, 'forbidden', error.message, { backend_code: error.code });
  }
  return new GatewayError(502, 'backend_error', error.message, { backend_code: error.code, backend_status: error.status });
}
