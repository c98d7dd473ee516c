// Creating a group: the row is inserted as the student (RLS: created_by must be them; a trigger
// makes them its owner), then the icon, if one was picked, goes to group-icons under the new id.
import { useEffect, useState } from 'preact/hooks';
import { BusyButton } from '../../components/BusyButton.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import {
  GroupFields,
  validateGroup,
  type GroupFieldErrors,
  type GroupFieldValues,
} from '../../components/community/GroupFields.tsx';
import { createGroup, uploadGroupIcon } from '../../lib/community/groups.ts';
import { describeCommunityError } from '../../lib/community/words.ts';

const EMPTY: GroupFieldValues = { name: '', description: '', visibility: 'public', joinPolicy: 'request', icon: null };

export function CreateGroupDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (groupId: string) => void;
}) {
  const [values, setValues] = useState<GroupFieldValues>(EMPTY);
  const [errors, setErrors] = useState<GroupFieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (open) {
      setValues(EMPTY);
      setErrors({});
      setProblem(null);
    }
  }, [open]);

  const create = async (event: Event) => {
    event.preventDefault();
    const found = validateGroup(values);
    setErrors((previous) => ({ ...found, icon: previous.icon }));
    if (found.name || found.description) return;
    setBusy(true);
    setProblem(null);
    try {
      const group = await createGroup({
        name: values.name.trim(),
        description: values.description.trim(),
        visibility: values.visibility,
        joinPolicy: values.joinPolicy,
      });
      if (values.icon) {
        try {
          await uploadGroupIcon(group.id, values.icon);
        } catch {
          // The group exists; its owner can add the icon from the group's settings.
        }
      }
      onClose();
      onCreated(group.id);
    } catch (failure) {
      setProblem(describeCommunityError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title="Create a group"
      wide
      onClose={onClose}
      actions={
        <>
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <BusyButton type="submit" form="create-group" class="button button-primary" busy={busy} busyLabel="Creating…">
            Create group
          </BusyButton>
        </>
      }
    >
      <form id="create-group" onSubmit={(event) => void create(event)} noValidate>
        <GroupFields
          idPrefix="new-group"
          values={values}
          errors={errors}
          onChange={setValues}
          onIconError={(message) => setErrors((previous) => ({ ...previous, icon: message }))}
        />
      </form>
      {problem && (
        <div class="notice notice-error" role="alert">
          <p>{problem}</p>
        </div>
      )}
    </Dialog>
  );
}
