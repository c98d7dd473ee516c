// /invite/:token for a visitor who is not signed in: what the link leads to (the preview works
// before sign-in), then the sign-up form. Signing up or in keeps the address, so the invite page
// is what the student lands on next, one click from joining.
import { useEffect, useState } from 'preact/hooks';
import type { InvitePreview } from '#contracts/community-answers.ts';
import { previewInvite } from '../../lib/community/invites.ts';
import WelcomePage from '../auth/WelcomePage.tsx';
import { InviteSummary } from './InviteCard.tsx';
import '../../styles/community/shared.css';
import '../../styles/community/invite.css';

export default function InviteWelcome({ token }: { token: string }) {
  const [preview, setPreview] = useState<InvitePreview | null>(null);
  useEffect(() => {
    void previewInvite(token)
      .then(setPreview)
      .catch(() => setPreview(null));
  }, [token]);
  const intro = preview ? (
    <div class="invite-welcome-intro">
      <InviteSummary preview={preview} />
      {preview.valid && (
        <p>
          Create an account (or log in) and you come straight back here to{' '}
          {preview.type === 'group' ? 'join' : 'accept'}.
        </p>
      )}
    </div>
  ) : null;
  return <WelcomePage initialMode="signup" intro={intro} headingLevel={preview ? 2 : 1} />;
}
