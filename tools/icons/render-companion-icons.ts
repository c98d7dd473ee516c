// Renders the companion's PNG icons from its SVGs (companion/ui/icons) with Debian's Chromium: the
// PWA's icons into companion/ui/public/icons and the Android launcher icons into the app's mipmap
// folders. Developer tooling, so it lives in tools/ and shares the one Chromium launcher of the
// browser tests. Run after changing an SVG: node --import tsx tools/icons/render-companion-icons.ts
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';
import { launchChromium } from '../e2e/browser.ts';

const iconsDir = path.join(repoRoot, 'companion', 'ui', 'icons');
const pwaDir = path.join(repoRoot, 'companion', 'ui', 'public', 'icons');
const resDir = path.join(repoRoot, 'companion', 'android', 'app', 'src', 'main', 'res');

const renders = [
  { svg: 'icon.svg', out: path.join(pwaDir, 'icon-192.png'), size: 192 },
  { svg: 'icon.svg', out: path.join(pwaDir, 'icon-512.png'), size: 512 },
  { svg: 'icon-maskable.svg', out: path.join(pwaDir, 'icon-maskable-512.png'), size: 512 },
  // iOS rounds the corners itself and shows transparency as black: the full-bleed one fits.
  { svg: 'icon-maskable.svg', out: path.join(pwaDir, 'apple-touch-icon.png'), size: 180 },
];
// Launcher icons are 48 dp, adaptive foregrounds 108 dp, at each density.
const densities = { mdpi: 1, hdpi: 1.5, xhdpi: 2, xxhdpi: 3, xxxhdpi: 4 };
for (const [density, scale] of Object.entries(densities)) {
  const folder = path.join(resDir, `mipmap-${density}`);
  renders.push(
    { svg: 'icon.svg', out: path.join(folder, 'ic_launcher.png'), size: 48 * scale },
    { svg: 'icon-round.svg', out: path.join(folder, 'ic_launcher_round.png'), size: 48 * scale },
    { svg: 'icon-foreground.svg', out: path.join(folder, 'ic_launcher_foreground.png'), size: 108 * scale },
  );
}

const browser = await launchChromium();
try {
  for (const { svg, out, size } of renders) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const markup = await readFile(path.join(iconsDir, svg), 'utf8');
    await page.setContent(
      `<html><body style="margin:0;background:transparent">${markup.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`,
    );
    await page.screenshot({ path: out, omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    await page.close();
    console.log(`icons: ${path.relative(process.cwd(), out)} (${size}x${size})`);
  }
} finally {
  await browser.close();
}
