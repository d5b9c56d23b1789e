export * from './catalog.js';
export * from './stats.js';
