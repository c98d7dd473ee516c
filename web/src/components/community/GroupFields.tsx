// The fields that describe a group, for creating one and for an owner editing it: name,
// description, icon (a raster image, resized in the browser before upload), who can find it and
// how people join. Validation mirrors the database's limits so errors show under their field.
import { useEffect, useState } from 'preact/hooks';
import type { JoinPolicy, Visibility } from '#contracts/community-rows.ts';
import { iconFromFile, IconError, ICON_TYPES } from '../../lib/community/icon.ts';
import { FieldError } from '../FieldError.tsx';
import { POLICY_CHOICES, VISIBILITY_CHOICES } from './policy-words.ts';
import { Avatar } from './Avatar.tsx';
import { ChoiceGroup } from './ChoiceGroup.tsx';

export interface GroupFieldValues {
  name: string;
  description: string;
  visibility: Visibility;
  joinPolicy: JoinPolicy;
  /** A new icon picked (already resized), or null to keep the current one. */
  icon: Blob | null;
}

export type GroupFieldErrors = Partial<Record<'name' | 'description' | 'icon', string>>;

export function validateGroup(values: GroupFieldValues): GroupFieldErrors {
  const errors: GroupFieldErrors = {};
  if (!values.name.trim()) errors.name = 'Give the group a name.';
  else if (values.name.trim().length > 80) errors.name = 'Keep the name to 80 characters.';
  if (values.description.length > 2000) errors.description = 'Keep the description to 2,000 characters.';
  return errors;
}

export function GroupFields({
  idPrefix,
  values,
  errors,
  currentIconUrl,
  onChange,
  onIconError,
}: {
  idPrefix: string;
  values: GroupFieldValues;
  errors: GroupFieldErrors;
  currentIconUrl?: string | null;
  onChange: (next: GroupFieldValues) => void;
  onIconError: (message: string | undefined) => void;
}) {
  const [preview, setPreview] = useState<string | null>(null);
  useEffect(() => {
    if (!values.icon) return setPreview(null);
    const url = URL.createObjectURL(values.icon);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [values.icon]);
  const id = (name: string) => `${idPrefix}-${name}`;
  const pick = async (file: File | undefined) => {
    onIconError(undefined);
    if (!file) return;
    try {
      onChange({ ...values, icon: await iconFromFile(file) });
    } catch (error) {
      onIconError(error instanceof IconError ? error.message : 'This image could not be used.');
    }
  };
  return (
    <div class="stack">
      <div class="field">
        <label class="field-label" for={id('name')}>
          Name
        </label>
        <input
          id={id('name')}
          class="input"
          value={values.name}
          maxLength={80}
          autoComplete="off"
          onInput={(event) => onChange({ ...values, name: event.currentTarget.value })}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? id('name-error') : undefined}
        />
        <FieldError id={id('name-error')} message={errors.name} />
      </div>
      <div class="field">
        <label class="field-label" for={id('description')}>
          Description <span class="muted">(optional)</span>
        </label>
        <textarea
          id={id('description')}
          class="input textarea"
          rows={3}
          maxLength={2000}
          value={values.description}
          onInput={(event) => onChange({ ...values, description: event.currentTarget.value })}
          aria-invalid={errors.description ? true : undefined}
          aria-describedby={errors.description ? id('description-error') : id('description-hint')}
        />
        {errors.description ? (
          <FieldError id={id('description-error')} message={errors.description} />
        ) : (
          <p id={id('description-hint')} class="field-hint">
            What you study together, the exam you aim for, how you like to work.
          </p>
        )}
      </div>
      <div class="field">
        <span class="field-label" id={id('icon-label')}>
          Icon <span class="muted">(optional)</span>
        </span>
        <div class="row">
          <Avatar url={preview ?? currentIconUrl ?? null} name={values.name || 'Group'} size="large" square />
          <label class="button file-button">
            {preview || currentIconUrl ? 'Choose another picture…' : 'Choose a picture…'}
            <input
              type="file"
              accept={ICON_TYPES.join(',')}
              class="visually-hidden"
              aria-labelledby={id('icon-label')}
              aria-describedby={errors.icon ? id('icon-error') : id('icon-hint')}
              onChange={(event) => {
                void pick(event.currentTarget.files?.[0]);
                event.currentTarget.value = '';
              }}
            />
          </label>
        </div>
        {errors.icon ? (
          <FieldError id={id('icon-error')} message={errors.icon} />
        ) : (
          <p id={id('icon-hint')} class="field-hint">
            PNG, JPEG, WebP or GIF; cropped to a square and made small before it is sent.
          </p>
        )}
      </div>
      <ChoiceGroup
        legend="Who can find it"
        name={id('visibility')}
        choices={VISIBILITY_CHOICES}
        value={values.visibility}
        onChange={(visibility) => onChange({ ...values, visibility })}
      />
      <ChoiceGroup
        legend="How people join"
        name={id('policy')}
        choices={POLICY_CHOICES}
        value={values.joinPolicy}
        onChange={(joinPolicy) => onChange({ ...values, joinPolicy })}
      />
    </div>
  );
}
