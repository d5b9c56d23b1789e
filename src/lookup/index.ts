// The lookup layer: typed methods per endpoint, the envelope, error kinds, the cache.
export * from './cache.js';
export * from './client.js';
export * from './errors.js';
export * from './schemas.js';
