// The student's own reports, read back through supabase-js: RLS shows a reporter her reports only,
// and the column grants let her read whether and when each was handled, never how, by whom or the
// admin's note (asking for those columns fails the whole request, so they are never named here).
// A reported message is read with her own rights: she sees its text while she may read the chat,
// and a message an admin or its sender removed comes back as a tombstone.
import { z } from 'zod';
import { client, rows } from './backend.ts';

/** Exactly the columns the grant on community_reports gives a reporter (reason is hers, but not shown). */
export const MY_REPORT_COLUMNS = 'id,target_type,target_id,created_at,status,resolved_at';
const MESSAGE_COLUMNS = 'id,group_id,sender_id,content,deleted_at';
/** Enough for a screen; older reports are long settled. */
export const MY_REPORTS_LIMIT = 20;

const reportRow = z.object({
  id: z.string().min(1),
  target_type: z.enum(['message', 'user', 'group']),
  target_id: z.string().min(1),
  created_at: z.string().min(1),
  status: z.enum(['open', 'dismissed', 'actioned']),
  resolved_at: z.string().min(1).nullable(),
});

const messageRow = z.object({
  id: z.string().min(1),
  group_id: z.string().min(1),
  sender_id: z.string().min(1).nullable(),
  content: z.string(),
  deleted_at: z.string().min(1).nullable().optional(),
});

export interface MyReport {
  id: string;
  targetType: 'message' | 'user' | 'group';
  targetId: string;
  createdAt: string;
  /** Dismissed and actioned both read as handled: what was done is the admins' to know. */
  handled: boolean;
  resolvedAt: string | null;
  /** For a message report in this group: what she can still read of it. */
  message?: { senderId: string | null; content: string; removed: boolean };
}

/**
 * Her reports that may concern one group, newest first: the group itself, a message of its chat,
 * and every report on a student (a report names no group: the screen keeps those on its members).
 * A message she can no longer read, or one in another group, is left out: nothing tells which
 * group it was in.
 */
export async function myReportsIn(groupId: string): Promise<MyReport[]> {
  const db = await client();
  const reports = await rows(
    db
      .from('community_reports')
      .select(MY_REPORT_COLUMNS)
      .order('created_at', { ascending: false })
      .limit(MY_REPORTS_LIMIT),
    reportRow,
  );
  const messageIds = reports.filter((report) => report.target_type === 'message').map((report) => report.target_id);
  const messages = messageIds.length
    ? await rows(
        db.from('group_chat_messages').select(MESSAGE_COLUMNS).eq('group_id', groupId).in('id', messageIds),
        messageRow,
      )
    : [];
  const byId = new Map(messages.map((message) => [message.id, message]));
  const mine: MyReport[] = [];
  for (const report of reports) {
    const base = {
      id: report.id,
      targetType: report.target_type,
      targetId: report.target_id,
      createdAt: report.created_at,
      handled: report.status !== 'open',
      resolvedAt: report.resolved_at,
    };
    if (report.target_type === 'message') {
      const message = byId.get(report.target_id);
      if (!message) continue;
      const removed = Boolean(message.deleted_at);
      mine.push({
        ...base,
        message: { senderId: message.sender_id, content: removed ? '' : message.content, removed },
      });
    } else if (report.target_type === 'user' || report.target_id === groupId) {
      mine.push(base);
    }
  }
  return mine;
}
