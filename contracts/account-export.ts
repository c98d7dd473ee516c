// What export_my_data answers ("Download my data"): one JSON object with a section per table that
// holds the student's rows, the same tables account deletion empties. The app saves it as it
// comes; this shape says which sections the file has. A section that is a whole row of a table
// (`to_jsonb(row)`) is any object, so a new column needs no change here; the sections the function
// builds field by field, and the set of sections, are exact (tools/contracts/community-answers.parity.test.ts).
import { z } from 'zod';
import { groupRole, timestamp, uuid } from './community-rows.ts';

const row = z.record(z.string(), z.unknown());

export const myDataExport = z.object({
  exported_at: timestamp,
  user: row.nullable(),
  profile: row.nullable(),
  settings: row.nullable(),
  roles: z.array(z.string()),
  stats_summary: row.nullable(),
  daily_stats: z.array(row),
  study_sessions: z.array(row),
  tasks: z.array(row),
  backups: z.array(row),
  enrollment: row.nullable(),
  presence: row.nullable(),
  buddies: z.array(row),
  groups: z.array(z.object({ group_id: uuid, name: z.string(), role: groupRole, joined_at: timestamp })),
  messages: z.array(
    z.object({
      id: uuid,
      group_id: uuid,
      content: z.string(),
      created_at: timestamp,
      deleted_at: timestamp.nullable(),
    }),
  ),
  join_requests: z.array(
    z.object({ group_id: uuid, status: z.enum(['pending', 'accepted', 'declined']), created_at: timestamp }),
  ),
  reports: z.array(
    z.object({
      id: uuid,
      target_type: z.enum(['group', 'message', 'user']),
      target_id: uuid,
      reason: z.string(),
      status: z.enum(['open', 'dismissed', 'actioned']),
      created_at: timestamp,
    }),
  ),
  start_alerts: z.array(row),
  /** Only counted: the tokens address the student's devices, not her. */
  device_tokens: z.number().int(),
  /** Her subjects (user_subjects rows); empty where the table is not installed. */
  subjects: z.array(row),
  /**
   * The timer settings of her newest backup that carries them (the full set a device keeps, with
   * the phase-end sound); null before any. The lengths and daily goal the account holds are
   * columns of `settings`.
   */
  timer_settings: z.object({ saved_at: timestamp, backup_id: uuid, settings: row }).nullable(),
});
export type MyDataExport = z.infer<typeof myDataExport>;
