// Turns of the event loop, counted: a setImmediate that queues itself runs once a turn, so what
// holds the loop for long shows as few turns.

/** Counts turns of the event loop from now until stopped. */
export function turnCounter(): { now: () => number; stop: () => void } {
  let turn = 0;
  let on = true;
  const tick = () => {
    turn++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turn, stop: () => void (on = false) };
}
