export * from './catalog.js';
export * from './stats.js';
export * from './text.js';
export * from './ranks.js';
