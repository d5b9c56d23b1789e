// Card model -> the node tree the renderer draws (flex boxes and text, as CSS). Pure and cheap: it
// runs on the event loop; the drawing runs in a worker. Sizes are for a card shown about 400 px
// wide on a phone (about half size): no text under 24 px at the card's size, values 30 px and up, the headline 64 px.
import type { Node } from '@takumi-rs/core';

import { TITLE_COLORS, topShare } from '../embeds/format.js';
import { FONT_FAMILY } from './fonts.js';
import type { CardFigure, CardModel, ProfileCardModel, SessionCardModel } from './model.js';

export const CARD_WIDTH = 640;
export const CARD_HEIGHT = { profile: 500, session: 500 } as const;

const COLOR = {
  background: '#15171c',
  panel: '#23262e',
  text: '#ffffff',
  muted: '#b4b9c6',
  win: '#3ecf6e',
  loss: '#ff5c5c',
  other: '#8a90a0',
} as const;

const hex = (n: number) => `#${n.toString(16).padStart(6, '0')}`;
const PAD = 28;

type Style = Record<string, string | number>;

function box(style: Style, children: Node[] = []): Node {
  return { type: 'container', style: { display: 'flex', ...style }, children };
}

function text(t: string, style: Style = {}): Node {
  return { type: 'text', text: t, style: { whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis', flexShrink: 0, ...style } };
}

function frame(model: CardModel, badge: string | null, body: Node[]): Node {
  const accent = hex(TITLE_COLORS[model.title]);
  return box(
    { width: CARD_WIDTH, height: CARD_HEIGHT[model.kind], flexDirection: 'column', backgroundColor: COLOR.background, color: COLOR.text, fontFamily: FONT_FAMILY },
    [
      box({ height: 10, flexShrink: 0, backgroundColor: accent }),
      box({ flexDirection: 'column', padding: `${PAD - 8}px ${PAD}px ${PAD}px`, flexGrow: 1, gap: 16 }, [
        box({ alignItems: 'center', gap: 16 }, [
          text(model.name || 'Player', { fontSize: 44, fontWeight: 700, flexShrink: 1, minWidth: 0 }),
          ...(badge ? [text(badge, { fontSize: 26, fontWeight: 700, color: COLOR.background, backgroundColor: accent, padding: '2px 14px', borderRadius: 18, flexShrink: 0 })] : []),
        ]),
        text(model.subtitle, { fontSize: 26, color: COLOR.muted, marginTop: -12, flexShrink: 1, minWidth: 0 }),
        ...body,
      ]),
    ],
  );
}

function bar(percentile: number, width: number, color: string): Node {
  return box({ width, height: 12, backgroundColor: COLOR.panel, borderRadius: 6 }, [box({ width: Math.max(12, Math.round((width * percentile) / 100)), height: 12, backgroundColor: color, borderRadius: 6 })]);
}

function figureRow(f: CardFigure, accent: string): Node {
  return box({ flexDirection: 'column', gap: 6 }, [
    box({ alignItems: 'baseline', gap: 12 }, [text(f.label, { fontSize: 26, color: COLOR.muted, minWidth: 180 }), text(f.value, { fontSize: 30, fontWeight: 700 })]),
    ...(f.percentile !== null
      ? [box({ alignItems: 'center', gap: 14 }, [bar(f.percentile, 220, accent), text(topShare(f.percentile) ?? '', { fontSize: 24, color: COLOR.muted })])]
      : []),
  ]);
}

function profileLayout(model: ProfileCardModel): Node {
  const accent = hex(TITLE_COLORS[model.title]);
  return frame(model, model.tier, [
    box({ gap: 24, flexGrow: 1, marginTop: 8 }, [
      box(
        { flexDirection: 'column', width: 190, gap: 10 },
        model.lead.map((f) =>
          box({ flexDirection: 'column' }, [text(f.label, { fontSize: 26, color: COLOR.muted }), text(f.value, { fontSize: 64, fontWeight: 700, lineHeight: 1.1 })]),
        ),
      ),
      box({ flexDirection: 'column', flexGrow: 1, gap: 10 }, model.figures.map((f) => figureRow(f, accent))),
    ]),
  ]);
}

function chart(label: string, values: readonly number[], color: string, width: number): Node {
  const max = Math.max(1, ...values);
  const height = 72;
  const gap = 6;
  const barWidth = Math.max(6, Math.floor((width - gap * (values.length - 1)) / Math.max(1, values.length)));
  const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  return box({ flexDirection: 'column', width, gap: 6 }, [
    box({ alignItems: 'baseline', gap: 10 }, [text(label, { fontSize: 24, color: COLOR.muted }), text(`best ${fmt.format(max)}`, { fontSize: 24, fontWeight: 700 })]),
    box(
      { height, alignItems: 'flex-end', gap },
      values.map((v) => box({ width: barWidth, height: Math.max(4, Math.round((height * v) / max)), backgroundColor: color, borderRadius: 3 })),
    ),
  ]);
}

function sessionLayout(model: SessionCardModel): Node {
  const accent = hex(TITLE_COLORS[model.title]);
  const badge = model.active ? 'Playing now' : model.ratingChange ? `Rating ${model.ratingChange}` : null;
  const letter = { win: 'W', loss: 'L', other: '–' } as const;
  return frame(model, badge, [
    box(
      { gap: 6 },
      model.results.map((r) =>
        box({ width: 40, height: 42, backgroundColor: COLOR[r], borderRadius: 6, alignItems: 'center', justifyContent: 'center' }, [text(letter[r], { fontSize: 26, fontWeight: 700, color: COLOR.background })]),
      ),
    ),
    box({ gap: 32 }, [chart('Kills', model.kills, accent, 276), chart('Damage', model.damage, COLOR.muted, 276)]),
    box(
      { gap: 16 },
      model.versus.map((v) =>
        box({ flexDirection: 'column', width: 184 }, [
          text(v.label, { fontSize: 24, color: COLOR.muted }),
          // Arrows from the Latin subset (U+2191, U+2193): the fonts have no geometric triangles.
          text(`${v.session}${v.better === null ? '' : v.better ? ' ↑' : ' ↓'}`, { fontSize: 36, fontWeight: 700, color: v.better === null ? COLOR.text : v.better ? COLOR.win : COLOR.loss }),
          ...(v.career !== null ? [text(`career ${v.career}`, { fontSize: 24, color: COLOR.muted })] : []),
        ]),
      ),
    ),
  ]);
}

export function cardLayout(model: CardModel): { node: Node; width: number; height: number } {
  const node = model.kind === 'profile' ? profileLayout(model) : sessionLayout(model);
  return { node, width: CARD_WIDTH, height: CARD_HEIGHT[model.kind] };
}
