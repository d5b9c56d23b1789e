// A card worker that never answers: the pool's deadline must give the card up and replace it.
import { parentPort } from 'node:worker_threads';

// Started as the real worker says it is, then stuck on its first card.
parentPort?.postMessage({ ready: true, lowered: 0 });
parentPort?.on('message', () => {
  // Busy forever: not even the event loop comes back.
  for (;;);
});
