// Card model -> the node tree the renderer draws (flex boxes and text, as CSS). Pure and cheap: it
// runs in the card worker (render-worker.mjs), just before the drawing. Sizes are for a card shown about 400 px
// wide on a phone (about half size): no text under 24 px at the card's size, values 30 px and up, the headline 64 px.
import type { Node } from '@takumi-rs/core';

import { TITLE_COLORS, formatValue, topShare } from '../embeds/format.js';
import { say } from '../locales/index.js';
import { FONT_FAMILY } from './fonts.js';
import type { CardFigure, CardModel, CompareCardModel, MatchResult, ProfileCardModel, SessionCardModel } from './model.js';

export const CARD_WIDTH = 640;
/** Each kind's height; a compare card's is its header and a row a figure (`compareHeight`), at most MAX_COMPARE_ROWS. */
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

/** The card: the title's colour along the top, then `children` in a padded column. */
function shell(model: CardModel, height: number, gap: number, children: Node[]): Node {
  return box({ width: CARD_WIDTH, height, flexDirection: 'column', backgroundColor: COLOR.background, color: COLOR.text, fontFamily: FONT_FAMILY }, [
    box({ height: 10, flexShrink: 0, backgroundColor: hex(TITLE_COLORS[model.title]) }),
    box({ flexDirection: 'column', padding: `${PAD - 8}px ${PAD}px ${PAD}px`, flexGrow: 1, gap }, children),
  ]);
}

function frame(model: ProfileCardModel | SessionCardModel, badge: string | null, body: Node[]): Node {
  const accent = hex(TITLE_COLORS[model.title]);
  return shell(model, CARD_HEIGHT[model.kind], 16, [
    box({ alignItems: 'center', gap: 16 }, [
      text(model.name || say(model.language, 'card.player'), { fontSize: 44, fontWeight: 700, flexShrink: 1, minWidth: 0 }),
      // A badge never takes the name's room: at most about half the line, cut with an ellipsis past it.
      ...(badge
        ? [
            text(badge, {
              fontSize: 26,
              fontWeight: 700,
              color: textOn(TITLE_COLORS[model.title]),
              backgroundColor: accent,
              padding: '2px 14px',
              borderRadius: 18,
              flexShrink: 0,
              maxWidth: 240,
            }),
          ]
        : []),
    ]),
    text(model.subtitle, { fontSize: 26, color: COLOR.muted, marginTop: -12, flexShrink: 1, minWidth: 0 }),
    ...body,
  ]);
}

/**
 * The headline's size for its value: 64 px for up to five characters (`1.48`, `55.5%`), smaller for
 * longer ones (`100.0%`, `150.00`, `12.3K`), so that the 190 px column shows it whole.
 */
const leadSize = (value: string) => (value.length <= 5 ? 64 : value.length === 6 ? 52 : value.length === 7 ? 46 : 40);

function bar(percentile: number, width: number, color: string): Node {
  return box({ width, height: 12, backgroundColor: COLOR.panel, borderRadius: 6 }, [
    box({ width: Math.max(12, Math.round((width * percentile) / 100)), height: 12, backgroundColor: color, borderRadius: 6 }),
  ]);
}

function figureRow(f: CardFigure, accent: string, language: string): Node {
  return box({ flexDirection: 'column', gap: 6, minWidth: 0 }, [
    box({ alignItems: 'baseline', gap: 12, minWidth: 0 }, [
      text(f.label, { fontSize: 26, color: COLOR.muted, minWidth: 180 }),
      text(f.value, { fontSize: 30, fontWeight: 700, flexShrink: 1, minWidth: 0 }),
    ]),
    ...(f.percentile !== null
      ? [
          box({ alignItems: 'center', gap: 14 }, [
            bar(f.percentile, 220, accent),
            text(topShare(f.percentile, language) ?? '', { fontSize: 24, color: COLOR.muted }),
          ]),
        ]
      : []),
  ]);
}

/** The rank's emblem: a disc in the tier's colours holding its mark (`D1`), the tier's name and rating beside it. */
function emblem(rank: NonNullable<ProfileCardModel['rank']>): Node {
  return box({ alignItems: 'center', gap: 16, minWidth: 0, flexShrink: 1 }, [
    box(
      {
        width: 104,
        height: 104,
        flexShrink: 0,
        borderRadius: 52,
        backgroundColor: rank.fill,
        border: `8px solid ${rank.edge}`,
        alignItems: 'center',
        justifyContent: 'center',
      },
      [text(rank.mark, { fontSize: rank.mark.length <= 2 ? 40 : 30, fontWeight: 700, color: COLOR.background })],
    ),
    box({ flexDirection: 'column', minWidth: 0, flexShrink: 1 }, [
      text(rank.tier, { fontSize: 32, fontWeight: 700, flexShrink: 1, minWidth: 0 }),
      ...(rank.rating ? [text(rank.rating, { fontSize: 30, color: COLOR.text })] : []),
      ...(rank.peak ? [text(rank.peak, { fontSize: 24, color: COLOR.muted, flexShrink: 1, minWidth: 0 })] : []),
    ]),
  ]);
}

/** The results as letters on their colours (a shape and a letter as well as a colour), oldest first. */
function strip(results: readonly MatchResult[], language: string, size: number): Node {
  const letter = { win: say(language, 'result.letter.win'), loss: say(language, 'result.letter.loss'), other: '–' } as const;
  return box(
    { gap: 6 },
    results.map((r) =>
      box({ width: size, height: size + 2, backgroundColor: COLOR[r], borderRadius: 6, alignItems: 'center', justifyContent: 'center' }, [
        text(letter[r], { fontSize: Math.round(size * 0.65), fontWeight: 700, color: COLOR.background }),
      ]),
    ),
  );
}

/**
 * A line of bars from the lowest value to the highest, oldest first: a rating moves by a few points
 * in thousands, so bars from zero would all look alike. The first and last value are written above.
 */
function trendChart(trend: NonNullable<ProfileCardModel['trend']>, color: string, width: number): Node {
  const lo = Math.min(...trend.values);
  const hi = Math.max(...trend.values);
  const height = 64;
  const gap = 6;
  const barWidth = Math.max(6, Math.floor((width - gap * (trend.values.length - 1)) / trend.values.length));
  return box({ flexDirection: 'column', width, gap: 6 }, [
    box({ alignItems: 'baseline', gap: 10 }, [
      text(trend.label, { fontSize: 24, color: COLOR.muted }),
      // Arrows from the Latin subset (U+2191, U+2193): the fonts have no rightwards arrow.
      text(`${trend.from} ${trend.rise > 0 ? '↑' : trend.rise < 0 ? '↓' : '='} ${trend.to}`, { fontSize: 24, fontWeight: 700 }),
    ]),
    box(
      { height, alignItems: 'flex-end', gap },
      trend.values.map((v) =>
        box({
          width: barWidth,
          height: hi === lo ? height / 2 : 8 + Math.round(((height - 8) * (v - lo)) / (hi - lo)),
          backgroundColor: color,
          borderRadius: 3,
        }),
      ),
    ),
  ]);
}

function profileLayout(model: ProfileCardModel): Node {
  const accent = hex(TITLE_COLORS[model.title]);
  const lead = (f: CardFigure) =>
    box({ flexDirection: 'column', minWidth: 0 }, [
      text(f.label, { fontSize: 26, color: COLOR.muted }),
      text(f.value, { fontSize: model.rank ? Math.min(40, leadSize(f.value)) : leadSize(f.value), fontWeight: 700, lineHeight: 1.1, maxWidth: 190 }),
    ]);
  const inner = CARD_WIDTH - 2 * PAD;
  return frame(model, null, [
    // The rank leads where there is one, K/D and win rate beside it; else they lead, the figures beside them.
    model.rank
      ? box({ gap: 24, alignItems: 'center', justifyContent: 'space-between', marginTop: 4 }, [
          emblem(model.rank),
          box({ gap: 18, flexShrink: 0 }, model.lead.map(lead)),
        ])
      : box({ gap: 24, marginTop: 8 }, [
          box({ flexDirection: 'column', width: 190, gap: 10 }, model.lead.map(lead)),
          box(
            { flexDirection: 'column', flexGrow: 1, flexShrink: 1, minWidth: 0, gap: 10 },
            model.figures.map((f) => figureRow(f, accent, model.language)),
          ),
        ]),
    ...(model.form.length > 0 ? [strip(model.form, model.language, 40)] : []),
    ...(model.trend ? [trendChart(model.trend, accent, inner)] : []),
    ...(model.rank && model.figures.length > 0
      ? [
          box(
            { flexDirection: 'column', gap: 10 },
            model.figures.map((f) => figureRow(f, accent, model.language)),
          ),
        ]
      : []),
  ]);
}

/** A bar a match, `label` and the best above; a match without the figure keeps its place with no bar. */
function chart(label: string, values: readonly (number | null)[], color: string, width: number, language: string): Node {
  const max = Math.max(1, ...values.filter((v) => v !== null));
  const height = 72;
  const gap = 6;
  const barWidth = Math.max(6, Math.floor((width - gap * (values.length - 1)) / Math.max(1, values.length)));
  return box({ flexDirection: 'column', width, gap: 6 }, [
    box({ alignItems: 'baseline', gap: 10 }, [
      text(label, { fontSize: 24, color: COLOR.muted }),
      text(say(language, 'card.best', { value: formatValue(Math.round(max), 'Number', language, true) }), { fontSize: 24, fontWeight: 700 }),
    ]),
    box(
      { height, alignItems: 'flex-end', gap },
      values.map((v) =>
        v === null
          ? box({ width: barWidth, height: 0 })
          : box({ width: barWidth, height: Math.max(4, Math.round((height * v) / max)), backgroundColor: color, borderRadius: 3 }),
      ),
    ),
  ]);
}

function sessionLayout(model: SessionCardModel): Node {
  const accent = hex(TITLE_COLORS[model.title]);
  const badge = model.active
    ? say(model.language, 'card.playingNow')
    : model.ratingChange
      ? say(model.language, 'sessions.rating', { change: model.ratingChange })
      : null;
  return frame(model, badge, [
    strip(model.results, model.language, 40),
    // A chart no match of the session has a figure for is left out.
    box(
      { gap: 32 },
      [
        model.kills.some((v) => v !== null) ? chart(say(model.language, 'figure.kills'), model.kills, accent, 276, model.language) : null,
        model.damage.some((v) => v !== null) ? chart(say(model.language, 'figure.damage'), model.damage, COLOR.muted, 276, model.language) : null,
      ].filter((c) => c !== null),
    ),
    box(
      { gap: 16 },
      model.versus.map((v) =>
        box({ flexDirection: 'column', width: 184 }, [
          text(v.label, { fontSize: 24, color: COLOR.muted }),
          // Arrows from the Latin subset (U+2191, U+2193): the fonts have no geometric triangles.
          text(`${v.session}${v.better === null ? '' : v.better ? ' ↑' : ' ↓'}`, {
            fontSize: 36,
            fontWeight: 700,
            color: v.better === null ? COLOR.text : v.better ? COLOR.win : COLOR.loss,
          }),
          ...(v.career !== null ? [text(say(model.language, 'sessions.career', { value: v.career }), { fontSize: 24, color: COLOR.muted })] : []),
        ]),
      ),
    ),
  ]);
}

/** Black or white, whichever reads better on `color` (WCAG contrast): the title colours run from yellow to dark red. */
function textOn(color: number): string {
  const channel = (shift: number) => {
    const c = ((color >> shift) & 0xff) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? COLOR.background : COLOR.text;
}

const COMPARE = { subtitle: 40, names: 96, rule: 2, row: 50 } as const;

/** A compare card's height for its rows: a phone shows it whole, with no empty band under short ones. */
export const compareHeight = (rows: number) => 10 + PAD - 8 + COMPARE.subtitle + COMPARE.names + COMPARE.rule + 8 + COMPARE.row * rows + PAD;

function compareLayout(model: CompareCardModel): Node {
  const accent = TITLE_COLORS[model.title];
  const half = (CARD_WIDTH - 2 * PAD - 24) / 2;
  const side = (name: string, ahead: number, behind: number, align: 'flex-start' | 'flex-end') =>
    box({ flexDirection: 'column', width: half, alignItems: align }, [
      text(name || say(model.language, 'card.player'), { fontSize: 40, fontWeight: 700, maxWidth: half }),
      text(ahead + behind === 0 ? ' ' : say(model.language, 'card.betterOn', { n: ahead, total: ahead + behind }), {
        fontSize: 24,
        fontWeight: ahead > behind ? 700 : 400,
        color: ahead > behind ? COLOR.text : COLOR.muted,
      }),
    ]);
  // The better of a pair sits on the title's colour (a shape as well as a colour); the other is dimmed.
  const value = (v: string, mark: 'better' | 'worse' | 'plain') =>
    text(v, {
      fontSize: 32,
      fontWeight: 700,
      padding: '0px 12px',
      borderRadius: 10,
      color: mark === 'better' ? textOn(accent) : mark === 'worse' ? COLOR.muted : COLOR.text,
      ...(mark === 'better' ? { backgroundColor: hex(accent) } : {}),
    });
  const markOf = (better: CompareCardModel['rows'][number]['better'], side: 'left' | 'right') =>
    better === side ? 'better' : better === 'left' || better === 'right' ? 'worse' : 'plain';
  return shell(model, compareHeight(model.rows.length), 0, [
    text(model.subtitle, { fontSize: 26, color: COLOR.muted, height: COMPARE.subtitle, flexShrink: 1, minWidth: 0 }),
    box({ justifyContent: 'space-between', height: COMPARE.names }, [
      side(model.name, model.ahead.left, model.ahead.right, 'flex-start'),
      side(model.other, model.ahead.right, model.ahead.left, 'flex-end'),
    ]),
    box({ height: COMPARE.rule, flexShrink: 0, backgroundColor: COLOR.panel, marginBottom: 8 }),
    ...model.rows.map((r) =>
      box({ height: COMPARE.row, flexShrink: 0, alignItems: 'center', justifyContent: 'space-between' }, [
        box({ width: 200, justifyContent: 'flex-start', marginLeft: -12 }, [value(r.left, markOf(r.better, 'left'))]),
        text(r.label, { fontSize: 24, color: COLOR.muted, flexShrink: 1, minWidth: 0 }),
        box({ width: 200, justifyContent: 'flex-end', marginRight: -12 }, [value(r.right, markOf(r.better, 'right'))]),
      ]),
    ),
  ]);
}

export function cardLayout(model: CardModel): { node: Node; width: number; height: number } {
  switch (model.kind) {
    case 'profile':
      return { node: profileLayout(model), width: CARD_WIDTH, height: CARD_HEIGHT.profile };
    case 'session':
      return { node: sessionLayout(model), width: CARD_WIDTH, height: CARD_HEIGHT.session };
    case 'compare':
      return { node: compareLayout(model), width: CARD_WIDTH, height: compareHeight(model.rows.length) };
  }
}
