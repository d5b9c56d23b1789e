// The container's HEALTHCHECK: asks the process's own /healthz when METRICS_PORT is set (healthy
// without it: there is nothing to ask, and the process manager sees the process run).
import { get } from 'node:http';
import process from 'node:process';

// Blank counts as unset, as the bot's own settings read it (a .env line `METRICS_PORT= `).
const port = process.env.METRICS_PORT?.trim();
if (!port) process.exit(0);
const bound = process.env.METRICS_HOST?.trim() || '127.0.0.1';
// Listening on every address (0.0.0.0, ::) answers on loopback too.
const host = bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound;
const req = get({ host, port: Number(port), path: '/healthz', timeout: 4_000 }, (res) => process.exit(res.statusCode === 200 ? 0 : 1));
req.on('timeout', () => process.exit(1));
req.on('error', () => process.exit(1));
