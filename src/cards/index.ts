export { CARD_FILE, withCard, type CardDeps } from './attach.js';
export { drawable, fontFiles } from './fonts.js';
export { CARD_HEIGHT, CARD_WIDTH, cardLayout } from './layout.js';
export { compareCard, profileCard, sessionCard, type CardModel, type CompareCardModel, type ProfileCardModel, type SessionCardModel } from './model.js';
export { CardRenderError, WORKER_START_MS, createCardRenderer, type CardRenderer, type CardRendererOptions } from './renderer.js';
