-- Housekeeping of the gateways' shared state (a district: docs/deployment.md), run by every gateway
-- now and then: counting windows that have ended and admin session records that can refuse nothing
-- any more. Idempotent: part of community-patch-v6.sql. Rules: docs/database.md#gateway-shared-state.
-- Any gateway may run it at any time; two at once delete the same rows, which is harmless.

create or replace function public.gateway_prune_shared_state() returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_windows integer;
  v_budgets integer;
  v_sessions integer;
  v_accounts integer;
begin
  delete from private.gateway_rate_windows where window_ends_at <= v_now;
  get diagnostics v_windows = row_count;
  -- A budget whose window ended still counts attempts in flight until they lapse.
  delete from private.gateway_login_budgets
    where window_ends_at <= v_now and (in_flight = 0 or in_flight_until <= v_now);
  get diagnostics v_budgets = row_count;
  delete from private.gateway_ended_admin_sessions where expires_at < v_now;
  get diagnostics v_sessions = row_count;
  -- No cookie lives longer than 12 hours: an account's end older than that can refuse nothing.
  delete from private.gateway_ended_admin_accounts where ended_at < v_now - interval '12 hours';
  get diagnostics v_accounts = row_count;
  return jsonb_build_object('rate_windows', v_windows, 'login_budgets', v_budgets,
                            'admin_sessions', v_sessions, 'admin_accounts', v_accounts);
end
$$;
comment on function public.gateway_prune_shared_state() is
  'service: deletes the gateways'' shared state that no longer counts (ended windows, expired admin session records); answers how many rows of each went.';

revoke execute on function public.gateway_prune_shared_state() from public, anon, authenticated;
grant execute on function public.gateway_prune_shared_state() to service_role;
