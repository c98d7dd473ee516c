// Buddies: the overview (each buddy's day, filtered by their own switches), requests by handle,
// answers, removal and blocking.
import { z } from 'zod';
import { overviewEntry } from '#contracts/community-answers.ts';
import { rpc } from './backend.ts';

export const readOverview = () => rpc('community_get_overview', {}, z.array(overviewEntry));
export const requestBuddy = (handle: string) =>
  rpc('community_request_buddy', { p_handle: handle.trim().replace(/^@/, '') }, z.string());
export const respondBuddy = (connectionId: string, accept: boolean) =>
  rpc('community_respond_buddy', { p_connection_id: connectionId, p_accept: accept }, z.string());
export const removeBuddy = (userId: string, block: boolean) =>
  rpc('community_remove_buddy', { p_other_user: userId, p_block: block }, z.string());
