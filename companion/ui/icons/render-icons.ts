// Renders the companion's PNG icons from the two SVGs with Debian's Chromium, into public/icons.
// Run after changing an SVG: node --import tsx companion/ui/icons/render-icons.ts
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../../tools/e2e/browser.ts';

const iconsDir = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.join(iconsDir, '..', 'public', 'icons');

const renders = [
  { svg: 'icon.svg', out: 'icon-192.png', size: 192 },
  { svg: 'icon.svg', out: 'icon-512.png', size: 512 },
  { svg: 'icon-maskable.svg', out: 'icon-maskable-512.png', size: 512 },
  // iOS rounds the corners itself and shows transparency as black: the full-bleed one fits.
  { svg: 'icon-maskable.svg', out: 'apple-touch-icon.png', size: 180 },
];

const browser = await launchChromium();
try {
  for (const { svg, out, size } of renders) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const markup = await readFile(path.join(iconsDir, svg), 'utf8');
    await page.setContent(`<html><body style="margin:0;background:transparent">${markup.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`);
    await page.screenshot({ path: path.join(outDir, out), omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    await page.close();
    console.log(`icons: ${out} (${size}x${size})`);
  }
} finally {
  await browser.close();
}
