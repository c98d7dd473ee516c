// The app's design tokens (contracts/design-tokens.css: colours, type, space, radii, for light and
// dark), read once when the server starts and placed at the top of every console page's style
// block, so the console's buttons, fields and colours are the app's and change with them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';

export const DESIGN_TOKENS_CSS = readFileSync(path.join(repoRoot, 'contracts', 'design-tokens.css'), 'utf8');
