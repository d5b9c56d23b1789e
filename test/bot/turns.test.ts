// Commands take turns with the event loop: one a turn, in order, so that what arrives meanwhile (an
// autocomplete's gateway frame) is read between two; and the queue is bounded.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

import { describe, expect, it } from 'vitest';

import { FULL, Turns } from '../../src/bot/turns.js';
import { turnCounter } from '../helpers/turns.js';

describe('Turns', () => {
  it('lets waiters go in order, one a turn of the event loop, never two in the same turn', async () => {
    const turns = new Turns(100);
    const counter = turnCounter();
    const seen: { i: number; turn: number }[] = [];
    await Promise.all([0, 1, 2, 3, 4].map((i) => turns.take().then(() => seen.push({ i, turn: counter.now() }))));
    counter.stop();
    expect(seen.map((s) => s.i)).toEqual([0, 1, 2, 3, 4]);
    for (let k = 1; k < seen.length; k++) expect(seen[k]!.turn).toBeGreaterThan(seen[k - 1]!.turn);
  });

  it('reads the sockets between two waiters: data written while the first runs is read before the second goes', async () => {
    // A loopback connection stands for the gateway: what arrives on it is read in the poll phase.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const inbound = await accepted;
    try {
      const turns = new Turns(100);
      const order: string[] = [];
      const arrived = new Promise<void>((resolve) => inbound.once('data', () => resolve(void order.push('arrived'))));
      const first = turns.take().then(() => {
        order.push('first');
        client.write('frame');
      });
      const rest = [1, 2, 3].map((i) => turns.take().then(() => order.push(`next ${i}`)));
      await Promise.all([first, arrived, ...rest]);
      // Not behind every waiter: at most the one whose turn was already due when the data landed.
      expect(order.indexOf('arrived')).toBeLessThanOrEqual(2);
    } finally {
      client.destroy();
      inbound.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('lets every command that has waited its catch-up time go at once (a process short of CPU turns slowly)', async () => {
    const turns = new Turns(100, 50);
    const counter = turnCounter();
    const seen: number[] = [];
    const all = Promise.all([0, 1, 2].map(() => turns.take().then(() => seen.push(counter.now()))));
    // The loop held for longer than the catch-up time before its next turn.
    const until = performance.now() + 60;
    while (performance.now() < until);
    await all;
    counter.stop();
    expect(new Set(seen).size).toBe(1);
  });

  it('refuses at once past its limit, and takes again once there is room', async () => {
    const turns = new Turns(2);
    const a = turns.take();
    const b = turns.take();
    expect(await turns.take()).toBe(FULL);
    expect(turns.queued).toBe(2);
    expect(await Promise.all([a, b])).toEqual([true, true]);
    expect(await turns.take()).toBe(true);
  });

  it('keeps its order across thousands of waiters (the released ones are dropped as it goes)', async () => {
    const turns = new Turns(5_000);
    const seen: number[] = [];
    await Promise.all(Array.from({ length: 3_000 }, (_, i) => turns.take().then(() => seen.push(i))));
    expect(seen).toEqual(Array.from({ length: 3_000 }, (_, i) => i));
    expect(turns.queued).toBe(0);
  });
});
