// A section named by its own heading: the heading carries the id and the section is labelled by
// it (aria-labelledby), so the pair cannot drift apart. A card of a page has an h2 with the
// card-title class; a part inside a card an h3 with section-title.
import type { ComponentChildren, JSX } from 'preact';

type SectionAttributes = Omit<JSX.HTMLAttributes<HTMLElement>, 'title' | 'aria-labelledby'>;

export interface TitledSectionProps extends SectionAttributes {
  /** The heading's id. */
  titleId: string;
  title: ComponentChildren;
  /** card: an h2 card-title (a card of a page); part: an h3 section-title (a part inside a card). */
  kind?: 'card' | 'part';
  children: ComponentChildren;
}

export function TitledSection({ titleId, title, kind = 'card', children, ...section }: TitledSectionProps) {
  const Heading = kind === 'part' ? 'h3' : 'h2';
  return (
    <section {...section} aria-labelledby={titleId}>
      <Heading id={titleId} class={kind === 'part' ? 'section-title' : 'card-title'}>
        {title}
      </Heading>
      {children}
    </section>
  );
}
