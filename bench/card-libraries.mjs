// How the card library was chosen: the same 800x400 card (a name, a subtitle, four rows of a label,
// a value and a bar) drawn by each candidate, median and slowest of 40 after one warm-up.
// The candidates other than @takumi-rs/core are not dependencies; install them for the run:
//   npm install --no-save sharp @resvg/resvg-js @napi-rs/canvas && node bench/card-libraries.mjs
// sharp and resvg draw the SVG with the system's fonts (DejaVu Sans here); takumi with the
// shipped Noto Sans.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const W = 800;
const H = 400;
const rows = [80, 40, 95, 10];

async function time(name, draw) {
  try {
    await draw();
  } catch (e) {
    console.log(`${name}: not available (${e.message.split('\n')[0]})`);
    return;
  }
  const t = [];
  for (let i = 0; i < 40; i++) {
    const s = performance.now();
    await draw();
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  console.log(`${name}: p50 ${t[20].toFixed(1)} ms, max ${t[39].toFixed(1)} ms`);
}

const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="${W}" height="${H}" fill="#16181d"/>
<text x="32" y="76" font-family="DejaVu Sans" font-size="40" font-weight="700" fill="#fff">Nova#2231 Łódź Ωμέγα Привет</text>
<text x="32" y="120" font-family="DejaVu Sans" font-size="24" fill="#aab">Title C · Console A</text>
${rows.map((p, i) => `<text x="32" y="${170 + i * 50}" font-family="DejaVu Sans" font-size="24" fill="#fff">K/D</text><text x="210" y="${170 + i * 50}" font-family="DejaVu Sans" font-size="28" font-weight="700" fill="#fff">1.23</text><rect x="344" y="${158 + i * 50}" width="300" height="12" rx="6" fill="#333"/><rect x="344" y="${158 + i * 50}" width="${3 * p}" height="12" rx="6" fill="#f5a623"/>`).join('')}</svg>`;

{
  const { Renderer } = await import('@takumi-rs/core');
  const renderer = new Renderer();
  const ranges = JSON.parse(readFileSync(require.resolve('@fontsource/noto-sans/unicode.json'), 'utf8'));
  for (const subset of ['latin', 'latin-ext', 'cyrillic', 'greek'])
    for (const weight of [400, 700]) {
      const unicodeRange = ranges[subset].split(',').map((r) => {
        const [a, b = a] = r.trim().replace('U+', '').split('-');
        return [parseInt(a.replace(/\?/g, '0'), 16), parseInt(b.replace(/\?/g, 'F'), 16)];
      });
      await renderer.registerFont({
        name: 'Noto Sans',
        weight,
        unicodeRange,
        data: readFileSync(require.resolve(`@fontsource/noto-sans/files/noto-sans-${subset}-${weight}-normal.woff2`)),
      });
    }
  const text = (t, style) => ({ type: 'text', text: t, style });
  const node = {
    type: 'container',
    style: {
      width: W,
      height: H,
      display: 'flex',
      flexDirection: 'column',
      padding: 32,
      gap: 12,
      backgroundColor: '#16181d',
      color: '#fff',
      fontFamily: 'Noto Sans',
    },
    children: [
      text('Nova#2231 Łódź Ωμέγα Привет', { fontSize: 40, fontWeight: 700 }),
      text('Title C · Console A', { fontSize: 24, color: '#aab' }),
      ...rows.map((p) => ({
        type: 'container',
        style: { display: 'flex', gap: 16, alignItems: 'center' },
        children: [
          text('K/D', { fontSize: 24, width: 160 }),
          text('1.23', { fontSize: 28, fontWeight: 700, width: 120 }),
          {
            type: 'container',
            style: { display: 'flex', width: 300, height: 12, backgroundColor: '#333', borderRadius: 6 },
            children: [{ type: 'container', style: { width: 3 * p, height: 12, backgroundColor: '#f5a623', borderRadius: 6 } }],
          },
        ],
      })),
    ],
  };
  await time('@takumi-rs/core', () => renderer.render(node, { width: W, height: H, format: 'png' }));
}
await time('sharp (SVG through librsvg)', async () => {
  const sharp = (await import('sharp')).default;
  return sharp(Buffer.from(svg)).png().toBuffer();
});
await time('@resvg/resvg-js (system fonts loaded per render)', async () => {
  const { Resvg } = await import('@resvg/resvg-js');
  return new Resvg(svg, { font: { loadSystemFonts: true } }).render().asPng();
});
await time('@napi-rs/canvas', async () => {
  const { createCanvas } = await import('@napi-rs/canvas');
  const c = createCanvas(W, H);
  const x = c.getContext('2d');
  x.fillStyle = '#16181d';
  x.fillRect(0, 0, W, H);
  x.fillStyle = '#fff';
  x.font = 'bold 40px sans-serif';
  x.fillText('Nova#2231 Łódź Ωμέγα Привет', 32, 76);
  rows.forEach((p, i) => {
    x.fillStyle = '#fff';
    x.font = '24px sans-serif';
    x.fillText('K/D', 32, 170 + i * 50);
    x.fillStyle = '#333';
    x.fillRect(344, 158 + i * 50, 300, 12);
    x.fillStyle = '#f5a623';
    x.fillRect(344, 158 + i * 50, 3 * p, 12);
  });
  return c.encode('png');
});
