// Group chat in realtime, through supabase-js only, on the real community schema: a private,
// invite-only group, a member who joined with the owner's invite, and an outsider with a valid token
// and the group's id. The member hears the owner's message within a second; the outsider, subscribed
// to the very same filter, hears nothing, because realtime asks RLS exactly as a select would.
// Run with every client flavour: the pinned supabase-js on both serializers and supabase-js 2.79.0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { REALTIME_CLIENTS, signedUpClient, type ClientFlavour } from '../clients.ts';
import { caughtUpWithQueue, listenForInserts } from '../realtime-listener.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

describe.each(REALTIME_CLIENTS.map((flavour) => [flavour.name, flavour] as const))(
  'with %s',
  (_name, flavour: ClientFlavour) => {
    let owner: Awaited<ReturnType<typeof signedUpClient>>;
    let member: Awaited<ReturnType<typeof signedUpClient>>;
    let outsider: Awaited<ReturnType<typeof signedUpClient>>;
    let groupId: string;

    beforeAll(async () => {
      [owner, member, outsider] = await Promise.all([
        signedUpClient(localbase, 'owner', flavour),
        signedUpClient(localbase, 'member', flavour),
        signedUpClient(localbase, 'outsider', flavour),
      ]);
      const created = await owner.client
        .from('groups')
        .insert({
          name: `Night Shift Anatomy (${flavour.name})`,
          visibility: 'private',
          join_policy: 'invite',
          created_by: owner.id,
        })
        .select('id')
        .single();
      if (created.error) throw new Error(`group creation failed: ${created.error.message}`);
      groupId = (created.data as { id: string }).id;
      const invite = await owner.client.rpc('community_create_invite', { p_type: 'group', p_target_id: groupId });
      if (invite.error) throw new Error(`invite failed: ${invite.error.message}`);
      const redeemed = await member.client.rpc('community_redeem_invite', { p_token: invite.data });
      if (redeemed.error) throw new Error(`redeem failed: ${redeemed.error.message}`);
    });

    afterAll(async () => {
      for (const person of [owner, member, outsider]) {
        await person?.client.removeAllChannels();
        // Ends the session on the server as well, as leaving the app does.
        await person?.client.auth.signOut();
      }
    });

    describe('group chat over realtime', () => {
      // Latency is a benchmark's business (tools/bench/); the deadline only keeps a lost event from hanging the test.
      it('reaches a member live and never an outsider subscribed to the same group', async () => {
        const filter = `group_id=eq.${groupId}`;
        const memberHears = await listenForInserts(member.client, 'group_chat_messages', filter);
        const outsiderHears = await listenForInserts(outsider.client, 'group_chat_messages', filter);

        const arrival = memberHears.next(5000);
        const sent = await owner.client.rpc('community_send_group_message', {
          p_group_id: groupId,
          p_content: 'flashcards at 9?',
        });
        expect(sent.error).toBeNull();
        const payload = await arrival;

        expect(payload?.new).toMatchObject({
          id: (sent.data as { id: string }).id,
          group_id: groupId,
          sender_id: owner.id,
          content: 'flashcards at 9?',
        });
        // The outsider's copy, had RLS let one through, would have reached her before the marker.
        await caughtUpWithQueue(localbase, outsider.client);
        expect(outsiderHears.received).toEqual([]);
      });

      it('agrees with what the outsider can read: no rows directly, an error from the history RPC', async () => {
        const direct = await outsider.client.from('group_chat_messages').select('id').eq('group_id', groupId);
        expect(direct.error).toBeNull();
        expect(direct.data).toEqual([]);
        const history = await outsider.client.rpc('community_get_group_messages', { p_group_id: groupId });
        expect(history.error?.message).toBe('not_group_member');
        const memberHistory = await member.client.rpc('community_get_group_messages', { p_group_id: groupId });
        expect(memberHistory.data).toEqual([expect.objectContaining({ content: 'flashcards at 9?' })]);
      });

      it('refuses a message from the outsider, so nobody hears one', async () => {
        const memberHears = await listenForInserts(member.client, 'group_chat_messages', `group_id=eq.${groupId}`);
        const refused = await outsider.client.rpc('community_send_group_message', {
          p_group_id: groupId,
          p_content: 'let me in',
        });
        expect(refused.error?.message).toBe('not_group_member');
        const direct = await outsider.client
          .from('group_chat_messages')
          .insert({ group_id: groupId, sender_id: outsider.id, content: 'let me in' });
        expect(direct.status).toBe(403);
        // A message either refusal had queued anyway would reach the member before the marker.
        await caughtUpWithQueue(localbase, member.client);
        expect(memberHears.received).toEqual([]);
      });
    });
  },
);
