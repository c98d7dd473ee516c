// The facts a group is known by, in one line: how many members, whether it is private, how
// people join. The dots between them are hidden from screen readers.
import type { GroupRow } from '#contracts/community-rows.ts';
import { plural } from '../../lib/format.ts';
import { ShieldIcon } from './icons.tsx';
import { policyWord } from './policy-words.ts';

type GroupFactsOf = Pick<GroupRow, 'member_count' | 'visibility' | 'join_policy'>;

export function GroupFacts({ group }: { group: GroupFactsOf }) {
  return (
    <>
      <span class="tabular">{plural(group.member_count, 'member')}</span>
      <span aria-hidden="true"> · </span>
      {group.visibility === 'private' ? (
        <span class="inline-icon">
          <ShieldIcon size={14} /> Private
        </span>
      ) : (
        'Public'
      )}
      <span aria-hidden="true"> · </span>
      {policyWord(group.join_policy)}
    </>
  );
}
