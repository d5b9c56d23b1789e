// Where a reply gets its card: the picture attached (`attachment://card.png`) as the embed's image,
// the text kept as it is, so the reply reads without the picture. Any failure to draw leaves the
// text reply and is logged; it never fails the command.
import type { Logger } from 'pino';

import type { Reply } from '../embeds/reply.js';
import type { CardModel } from './model.js';
import { CardRenderError, type CardRenderer } from './renderer.js';

export const CARD_FILE = 'card.png';

export interface CardDeps {
  /** Absent: text-only replies (CARDS=off). */
  cards?: CardRenderer | undefined;
  logger: Logger;
  /**
   * How long, from now, this answer may still wait for its card (the router sets it per
   * interaction from what is left of the answer's budget); 0 or less: the text goes alone and no
   * card is drawn. Unset: the renderer's own deadline.
   */
  cardWaitMs?: (() => number) | undefined;
}

/**
 * `reply` with the card `model()` drawn as its embed's image; `reply` itself when there is nothing
 * to draw or drawing fails. The model is made only when a card will be drawn.
 */
export async function withCard(reply: Reply, model: () => CardModel | undefined, deps: CardDeps, textOnly = false): Promise<Reply> {
  const first = reply.embeds[0];
  if (!deps.cards || textOnly || !first) return reply;
  let drawn: CardModel | undefined;
  try {
    drawn = model();
  } catch (e) {
    deps.logger.warn({ reason: 'model', err: (e as Error).message }, 'card not drawn; sending the text reply');
    return reply;
  }
  if (!drawn) return reply;
  const cardModel = drawn;
  try {
    const data = await deps.cards.render(cardModel, deps.cardWaitMs ? { waitMs: deps.cardWaitMs() } : {});
    return { ...reply, embeds: [{ ...first, image: { url: `attachment://${CARD_FILE}` } }, ...reply.embeds.slice(1)], files: [{ name: CARD_FILE, data }] };
  } catch (e) {
    const reason = e instanceof CardRenderError ? e.reason : 'failed';
    deps.logger.warn({ card: cardModel.kind, reason, err: (e as Error).message }, 'card not drawn; sending the text reply');
    return reply;
  }
}
