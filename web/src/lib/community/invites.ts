// Invite links (/invite/<token>): preview works signed out (anon may call it), redeeming needs an
// account. Unknown, expired and used-up tokens all preview as {valid: false}.
import { z } from 'zod';
import { invitePreview, redeemAnswer } from '#contracts/community-answers.ts';
import { rpc } from './backend.ts';

export const previewInvite = (token: string) => rpc('community_preview_invite', { p_token: token }, invitePreview);
export const redeemInvite = (token: string) => rpc('community_redeem_invite', { p_token: token }, redeemAnswer);
export const createBuddyInvite = (days: number | null, maxUses: number | null) =>
  rpc(
    'community_create_invite',
    { p_type: 'buddy', p_target_id: null, p_days: days, p_max_uses: maxUses },
    z.string().min(1),
  );
