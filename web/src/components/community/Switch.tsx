// An on/off switch (role="switch"): a real button, so Space and Enter toggle it, its state read
// out as checked or not, and its statement linked as its description.
export function Switch({
  id,
  checked,
  label,
  describedBy,
  disabled,
  onChange,
}: {
  id: string;
  checked: boolean;
  label: string;
  describedBy?: string;
  disabled?: boolean;
  onChange: (next: boolean) => void;
}) {
  return (
    <button
      type="button"
      id={id}
      role="switch"
      class="switch"
      aria-checked={checked}
      aria-label={label}
      aria-describedby={describedBy}
      disabled={disabled}
      onClick={() => onChange(!checked)}
    >
      <span class="switch-track" aria-hidden="true">
        <span class="switch-thumb" />
      </span>
      <span class="switch-word" aria-hidden="true">
        {checked ? 'On' : 'Off'}
      </span>
    </button>
  );
}
