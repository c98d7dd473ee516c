// The app: the welcome screen until a student is known, then the shell with its lazy screens.
import { useSignal } from '@preact/signals';
import type { ComponentType } from 'preact';
import { ErrorBoundary, LocationProvider, Route, Router, lazy, useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { Shell } from './components/Shell.tsx';
import { PageSkeleton } from './components/Skeleton.tsx';
import { places } from './routes.ts';
import { account, dataStatus } from './state/signals.ts';
import { NotFound } from './components/NotFound.tsx';
import { RestoreOfferHost } from './components/RestoreOfferHost.tsx';
import { LocalDataError } from './components/LocalDataError.tsx';
import { Lazy } from './components/Lazy.tsx';
import { authLinkOutcome } from './state/auth-link.ts';

const loadWelcome = () => import('./routes/auth/WelcomePage.tsx');
const loadInviteWelcome = () => import('./routes/invite/InviteWelcome.tsx');
const loadForgotPassword = () => import('./routes/auth/ForgotPasswordPage.tsx');
const loadSetPassword = () => import('./routes/auth/SetPasswordPage.tsx');
const screens = places.map((place) => ({
  place,
  component: (place.component ?? lazy(place.load as NonNullable<typeof place.load>)) as ComponentType,
}));

function Home() {
  const { route } = useLocation();
  useEffect(() => route('/focus', true), [route]);
  return null;
}

function Screens() {
  const loading = useSignal(false);
  if (dataStatus.value === 'error') return <LocalDataError />;
  return (
    <ErrorBoundary>
      {(loading.value || dataStatus.value === 'loading') && <PageSkeleton />}
      <div hidden={dataStatus.value === 'loading'}>
        <Router onLoadStart={() => (loading.value = true)} onLoadEnd={() => (loading.value = false)}>
          <Route path="/" component={Home} />
          {screens.flatMap(({ place, component }) => [
            <Route key={place.path} path={place.path} component={component} />,
            ...(place.aliases ?? []).map((alias) => <Route key={alias} path={alias} component={component} />),
          ])}
          <Route default component={NotFound} />
        </Router>
      </div>
    </ErrorBoundary>
  );
}

/** Signed out: the welcome screen, "Forgot password?", or an invite's preview above it (the address is kept). */
function SignedOut() {
  const { path } = useLocation();
  const invite = /^\/invite\/([^/]+)$/.exec(path);
  if (path === '/forgot-password')
    return <Lazy load={loadForgotPassword} props={{ problem: undefined }} fallback={<PageSkeleton />} />;
  return invite?.[1] ? (
    <Lazy load={loadInviteWelcome} props={{ token: decodeURIComponent(invite[1]) }} fallback={<PageSkeleton />} />
  ) : (
    <Lazy load={loadWelcome} props={{ headingLevel: 1 as const }} fallback={<PageSkeleton />} />
  );
}

/** What a followed e-mail link leads to before anything else: a new password, or why the link failed. */
function AfterAuthLink() {
  const outcome = authLinkOutcome.value;
  if (outcome?.kind === 'adopting') return <PageSkeleton />;
  if (outcome?.kind === 'failed')
    return <Lazy load={loadForgotPassword} props={{ problem: outcome.problem }} fallback={<PageSkeleton />} />;
  return <Lazy load={loadSetPassword} props={{}} fallback={<PageSkeleton />} />;
}

export function App() {
  const outcome = authLinkOutcome.value;
  const linkScreen =
    outcome?.kind === 'adopting' || outcome?.kind === 'failed' || (outcome?.kind === 'recovery' && account.value);
  return (
    <LocationProvider>
      {linkScreen ? (
        <AfterAuthLink />
      ) : account.value ? (
        <Shell>
          <Screens />
          <RestoreOfferHost />
        </Shell>
      ) : (
        <SignedOut />
      )}
    </LocationProvider>
  );
}
