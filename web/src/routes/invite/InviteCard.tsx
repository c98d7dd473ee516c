// What an invite link leads to, as community_preview_invite tells it (it works signed out): a
// group with its name, size and inviter, a buddy invitation, or a plain "this link does not work".
import type { InvitePreview } from '#contracts/community-answers.ts';
import { Avatar } from '../../components/community/Avatar.tsx';
import { plural } from '../../lib/format.ts';

export function InviteSummary({ preview }: { preview: InvitePreview }) {
  if (!preview.valid) {
    return (
      <div class="invite-summary">
        <h1 class="page-title">This invite link does not work</h1>
        <p class="muted">
          It may be mistyped, expired, used up, or revoked by the person who made it. Ask them for a new link.
        </p>
      </div>
    );
  }
  if (preview.type === 'group') {
    return (
      <div class="invite-summary">
        <Avatar url={null} name={preview.group_name} size="large" square />
        <div>
          <p class="muted">{preview.inviter ? `${preview.inviter} invited you to join` : 'You are invited to join'}</p>
          <h1 class="page-title">{preview.group_name}</h1>
          <p class="muted tabular">{plural(preview.member_count, 'member')}</p>
        </div>
      </div>
    );
  }
  return (
    <div class="invite-summary">
      <Avatar url={null} name={preview.inviter ?? 'A student'} size="large" />
      <div>
        <p class="muted">Study buddy invitation</p>
        <h1 class="page-title">{preview.inviter ?? 'A student'} wants to be your study buddy</h1>
        <p class="muted">Buddies see each other's study day, as far as each one shares.</p>
      </div>
    </div>
  );
}
