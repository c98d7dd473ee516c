// @vitest-environment happy-dom
// A section named by its heading: a card's h2 card-title, or a part's h3 section-title, and the
// section's other attributes kept.
import { cleanup, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { TitledSection } from './TitledSection.tsx';

afterEach(cleanup);

describe('TitledSection', () => {
  it('is a region named by its h2 card-title', () => {
    render(
      <TitledSection class="card stack" titleId="alerts-title" title="Start alerts" aria-busy>
        <p>Body</p>
      </TitledSection>,
    );
    const region = screen.getByRole('region', { name: 'Start alerts' });
    expect(region.getAttribute('class')).toBe('card stack');
    expect(region.getAttribute('aria-busy')).toBe('true');
    const heading = screen.getByRole('heading', { level: 2, name: 'Start alerts' });
    expect([heading.id, heading.getAttribute('class')]).toEqual(['alerts-title', 'card-title']);
    expect(region.textContent).toBe('Start alertsBody');
  });

  it('as a part of a card has an h3 section-title', () => {
    render(
      <TitledSection class="stack account-part" titleId="data-title" title="Your data" kind="part">
        <p>Body</p>
      </TitledSection>,
    );
    expect(screen.getByRole('region', { name: 'Your data' })).toBeTruthy();
    const heading = screen.getByRole('heading', { level: 3, name: 'Your data' });
    expect(heading.getAttribute('class')).toBe('section-title');
  });
});
