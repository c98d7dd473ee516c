// A refused backup file is explained in words a student reads (not a backup at all, another
// version, which part is damaged); the validator's paths and messages stay in the details.
import { describe, expect, it } from 'vitest';
import { NOT_A_BACKUP, parseBackup, parseBackupText } from './backup-import.ts';
import { BACKUP_FORMAT } from './backup-payload.ts';

const good = {
  format: BACKUP_FORMAT,
  version: 1,
  exported_at: '2026-11-25T10:00:00.000Z',
  subjects: [],
  tasks: [],
  sessions: [],
};

function refusal(value: unknown) {
  const parsed = parseBackup(value);
  if (parsed.ok) throw new Error('accepted');
  return parsed;
}

describe('a refused backup file', () => {
  it('says plainly that a foreign JSON file is not a studyhall backup, with no field names or validator words', () => {
    const parsed = refusal({ name: 'My playlist', tracks: [1, 2, 3] });
    expect(parsed.summary).toBe(NOT_A_BACKUP);
    expect(parsed.summary).not.toMatch(/exported_at|Invalid input|expected|undefined/);
    expect(parsed.problems.join(' ')).toMatch(/exported_at/);
  });

  it('says the same of a file that is not JSON, and of JSON that is not an object', () => {
    const text = parseBackupText('<html>not a backup</html>');
    expect(text).toMatchObject({ ok: false, summary: NOT_A_BACKUP, problems: ['the file is not JSON'] });
    expect(refusal([1, 2]).summary).toBe(NOT_A_BACKUP);
    expect(refusal(null).summary).toBe(NOT_A_BACKUP);
  });

  it('names another version as such', () => {
    expect(refusal({ ...good, version: 2 }).summary).toBe(
      'This backup was made by another version of studyhall, which this app cannot read.',
    );
  });

  it('names the damaged parts of a studyhall backup in words', () => {
    const { exported_at: _dropped, ...withoutDate } = good;
    expect(refusal(withoutDate).summary).toBe(
      'This studyhall backup is damaged and cannot be imported: something is wrong with the date it was saved.',
    );
    const parsed = refusal({
      ...good,
      sessions: [{ id: 's1', minutes: 0 }],
      tasks: [{ id: 'not-a-uuid' }],
    });
    expect(parsed.summary).toBe(
      'This studyhall backup is damaged and cannot be imported: something is wrong with its tasks and its study sessions.',
    );
    expect(parsed.summary).not.toMatch(/sessions\.0|Invalid|expected/);
  });

  it('accepts a good backup', () => {
    expect(parseBackup(good).ok).toBe(true);
  });
});
