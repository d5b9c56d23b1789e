// A card worker that never answers: the pool's deadline must give the card up and replace it.
import { parentPort } from 'node:worker_threads';

parentPort?.on('message', () => {
  // Busy forever: not even the event loop comes back.
  for (;;);
});
