// /invite/:token for a signed-in student: the preview, then one button that joins the group (or
// connects the buddies) through community_redeem_invite, and on to the group or the buddy list.
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { ErrorNotice } from '../../components/community/Notices.tsx';
import { useLoad } from '../../components/community/useLoad.ts';
import { PageSkeleton } from '../../components/Skeleton.tsx';
import { previewInvite, redeemInvite } from '../../lib/community/invites.ts';
import { describeCommunityError } from '../../lib/community/words.ts';
import { InviteSummary } from './InviteCard.tsx';
import '../../styles/community/shared.css';
import '../../styles/community/invite.css';

export default function InvitePage() {
  document.title = 'Invitation · studyhall';
  const { params } = useRoute();
  const { route } = useLocation();
  const token = params.token ?? '';
  const preview = useLoad(() => previewInvite(token), [token]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await redeemInvite(token);
      route(answer.type === 'group' ? `/groups/${answer.group_id}` : '/buddies');
    } catch (failure) {
      setError(describeCommunityError(failure));
      setBusy(false);
    }
  };

  if (preview.error)
    return (
      <div class="page">
        <h1 class="page-title">Invitation</h1>
        <ErrorNotice error={preview.error} onRetry={() => void preview.reload()} />
      </div>
    );
  if (!preview.data) return <PageSkeleton />;
  const data = preview.data;
  return (
    <div class="page invite-page">
      <section class="card stack invite-card">
        <InviteSummary preview={data} />
        {data.valid ? (
          <div class="row">
            <button
              type="button"
              class="button button-primary button-large"
              disabled={busy}
              onClick={() => void accept()}
            >
              {busy ? 'Joining…' : data.type === 'group' ? `Join ${data.group_name}` : 'Become buddies'}
            </button>
            <a class="button button-large" href="/community">
              Not now
            </a>
          </div>
        ) : (
          <p>
            <a class="button button-primary" href="/community">
              Go to Community
            </a>
          </p>
        )}
        {error && (
          <div class="notice notice-error" role="alert">
            <p>{error}</p>
          </div>
        )}
      </section>
    </div>
  );
}
