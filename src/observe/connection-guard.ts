// Keeps a listener reachable when anyone can open connections to it: the bot's HTTP interactions
// endpoint, the stats service and the health listener. Node's own `maxConnections` refuses every
// new connection at the cap, Discord's included, so a few hundred idle sockets made a worker deaf
// until its request timeout closed them. Here the cap makes room instead: the oldest connection that
// has not proved itself goes first. (Silent and half-sent connections are Node's to close: its
// headers timeout answers them 408.)
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

import type { Logger } from 'pino';

import { WarningThrottle } from '../lookup/warning-throttle.js';

export interface ConnectionGuardOptions {
  /**
   * Connections held at most. A new one past it closes the oldest that was never trusted (idle,
   * half-sent, or sending an unchecked request); when every one is trusted, the new one is closed.
   */
  maxConnections: number;
  /** Told once a minute at most while connections are closed to make room (a flood, or a cap set too low). */
  logger?: Logger | undefined;
}

export interface ConnectionGuard {
  /**
   * Marks a connection as a known client's (a signed interaction, a valid API key): it is never
   * closed to make room.
   */
  trust(socket: Socket): void;
}

export function guardConnections(server: Server, options: ConnectionGuardOptions): ConnectionGuard {
  // Insertion order is age order: the first untrusted entry is the oldest one.
  const open = new Map<Socket, { trusted: boolean }>();
  const warnings = new WarningThrottle();
  const closed = { evicted: 0, refused: 0 };
  const tell = () => {
    const alikeLeftOut = warnings.take();
    if (alikeLeftOut !== undefined)
      options.logger?.warn({ ...closed, max: options.maxConnections }, 'connections at the cap: the oldest of no known client are closed to make room');
  };
  const makeRoom = (): boolean => {
    for (const [socket, state] of open) {
      if (state.trusted) continue;
      // Out of the count now: its 'close' comes later, and the next connection must not pick it again.
      open.delete(socket);
      closed.evicted++;
      socket.destroy();
      return true;
    }
    return false;
  };
  server.on('connection', (socket: Socket) => {
    if (open.size >= options.maxConnections) {
      const made = makeRoom();
      if (!made) closed.refused++;
      tell();
      if (!made) return void socket.destroy();
    }
    open.set(socket, { trusted: false });
    socket.once('close', () => open.delete(socket));
  });
  return {
    trust(socket) {
      const state = open.get(socket);
      if (state) state.trusted = true;
    },
  };
}
