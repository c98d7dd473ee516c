// One of a few choices, each a radio button with its label and a hint under it, in a fieldset
// whose legend names the question.
export interface Choice<T extends string> {
  value: T;
  label: string;
  hint: string;
}

export interface ChoiceGroupProps<T extends string> {
  legend: string;
  /** The radio buttons' shared name (unique in the page). */
  name: string;
  choices: Choice<T>[];
  value: T;
  onChange: (value: T) => void;
}

export function ChoiceGroup<T extends string>({ legend, name, choices, value, onChange }: ChoiceGroupProps<T>) {
  return (
    <fieldset class="choice-group">
      <legend class="field-label">{legend}</legend>
      {choices.map((choice) => (
        <label key={choice.value} class="choice">
          <input
            type="radio"
            name={name}
            value={choice.value}
            checked={value === choice.value}
            onChange={() => onChange(choice.value)}
          />
          <span>
            <strong>{choice.label}</strong>
            <span class="choice-hint">{choice.hint}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
