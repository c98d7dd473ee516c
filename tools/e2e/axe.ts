// axe (@axe-core/playwright) on an open page, its findings as one line each, so that a failed
// check names the page, the rule and the elements. Most checks let minor and moderate findings
// through ('serious'); a check that holds a screen to nothing at all says 'any'.
import AxeBuilder from '@axe-core/playwright';
import { expect } from './expect.ts';
import type { Page } from 'playwright-core';

export interface AxeOptions {
  /** Which findings count: serious and critical ones (the default), or any. */
  impact?: 'serious' | 'any';
  /** Only this part of the page (a CSS selector). */
  include?: string;
}

/** `where: rule (impact): element, element` for each finding that counts. */
export async function axeFindings(page: Page, where: string, options: AxeOptions = {}): Promise<string[]> {
  // Every rule runs as before; only the violations get a selector per element. Nothing here reads
  // the elements that passed, and making theirs took about a sixth of a run (the dark-mode suite's
  // seven screens: 4.6 s against 5.4 s).
  const builder = new AxeBuilder({ page }).options({ resultTypes: ['violations'] });
  if (options.include) builder.include(options.include);
  const { violations } = await builder.analyze();
  return violations
    .filter(
      (violation) =>
        (options.impact ?? 'serious') === 'any' || violation.impact === 'serious' || violation.impact === 'critical',
    )
    .map(
      (violation) =>
        `${where}: ${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

export async function expectAxeClean(page: Page, where: string, options: AxeOptions = {}): Promise<void> {
  expect(await axeFindings(page, where, options), where).toEqual([]);
}
