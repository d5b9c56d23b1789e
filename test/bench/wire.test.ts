// The bench's loopback capture (bench/wire.ts): a pcap read back into each interaction's frame and
// callback times, and, where tcpdump is installed, a real capture of an exchange on loopback.
import { connect, createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from 'vitest';

import { canCapture, readWire, startCapture } from '../../bench/wire.js';

/** One Ethernet frame of TCP over IPv4 or IPv6 between `from` and `to`, carrying `text`. */
function packet(version: 4 | 6, from: number, to: number, text: string): Buffer {
  const payload = Buffer.from(text, 'latin1');
  const ethernet = Buffer.alloc(14);
  ethernet.writeUInt16BE(version === 4 ? 0x0800 : 0x86dd, 12);
  const ip = Buffer.alloc(version === 4 ? 20 : 40);
  if (version === 4) {
    ip[0] = 0x45;
    ip[9] = 6;
  } else {
    ip[0] = 0x60;
    ip[6] = 6;
  }
  const tcp = Buffer.alloc(20);
  tcp.writeUInt16BE(from, 0);
  tcp.writeUInt16BE(to, 2);
  tcp[12] = 5 << 4;
  return Buffer.concat([ethernet, ip, tcp, payload]);
}

function pcap(records: { ms: number; data: Buffer }[]): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt32LE(65535, 16);
  header.writeUInt32LE(1, 20);
  const parts: Buffer[] = [header];
  for (const { ms, data } of records) {
    const r = Buffer.alloc(16);
    r.writeUInt32LE(Math.floor(ms / 1000), 0);
    r.writeUInt32LE(Math.round((ms % 1000) * 1000), 4);
    r.writeUInt32LE(data.length, 8);
    r.writeUInt32LE(data.length, 12);
    parts.push(r, data);
  }
  return Buffer.concat(parts);
}

const ID = '1180000000000000123';

describe('the bench timing interactions on the wire', () => {
  it('reads the first frame from the double naming an interaction and the first callback to it', () => {
    const times = readWire(
      pcap([
        { ms: 1_000_000.5, data: packet(4, 4000, 51000, `{"op":0,"t":"INTERACTION_CREATE","d":{"id":"${ID}","token":"x"}}`) },
        // The same id again later, and a callback path in the double's own direction: neither counts.
        { ms: 1_000_001, data: packet(4, 4000, 51000, `{"d":{"id":"${ID}"}}`) },
        { ms: 1_000_002, data: packet(4, 4000, 51000, `POST /api/v10/interactions/${ID}/t/callback HTTP/1.1`) },
        { ms: 1_000_007.25, data: packet(6, 52000, 4000, `POST /api/v10/interactions/${ID}/tok/callback HTTP/1.1\r\n`) },
        { ms: 1_000_009, data: packet(4, 52000, 4000, `POST /api/v10/interactions/${ID}/tok/callback HTTP/1.1\r\n`) },
        // Another port's traffic.
        { ms: 999_999, data: packet(4, 4001, 51000, `{"d":{"id":"1180000000000000999"}}`) },
      ]),
      4000,
    );
    expect(times.frames.get(ID)).toBeCloseTo(1_000_000.5, 3);
    expect(times.callbacks.get(ID)).toBeCloseTo(1_000_007.25, 3);
    expect(times.frames.has('1180000000000000999')).toBe(false);
  });

  it('refuses what is not a little-endian Ethernet pcap', () => {
    expect(() => readWire(Buffer.alloc(24), 1)).toThrow(/not a little-endian pcap/);
    const linux = pcap([]);
    linux.writeUInt32LE(113, 20);
    expect(() => readWire(linux, 1)).toThrow(/link type 113/);
  });

  it.runIf(canCapture())('captures a gateway frame and a callback on loopback with tcpdump, and nothing else', async () => {
    // A server that sends a WebSocket text frame naming the interaction, and takes what comes.
    const text = `{"op":0,"t":"INTERACTION_CREATE","d":{"id":"${ID}"}}`;
    const server = createServer((socket) => {
      socket.on('data', () => undefined);
      socket.write(Buffer.concat([Buffer.from([0x81, text.length]), Buffer.from(text)]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const capture = await startCapture(port);
      const client = connect(port, '127.0.0.1');
      await new Promise((resolve) => client.once('data', resolve));
      // Not a POST: filtered out, though it names the same path.
      client.write(`GET /api/v10/interactions/${ID}/tok/callback HTTP/1.1\r\n\r\n`);
      await sleep(300);
      const sent = Date.now();
      client.write(`POST /api/v10/interactions/${ID}/tok/callback HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}`);
      await sleep(50);
      client.destroy();
      const times = await capture.stop();
      // Stopped once: a second stop (the bench's clean-up) gets the same answer.
      expect(await capture.stop()).toBe(times);
      const [frame, callback] = [times.frames.get(ID), times.callbacks.get(ID)];
      expect(frame).toBeDefined();
      expect(callback).toBeGreaterThanOrEqual(frame ?? Infinity);
      // The POST's time, not the GET's 300 ms or more before it (a busy machine only makes it later).
      expect(callback ?? 0).toBeGreaterThan(sent - 150);
    } finally {
      server.close();
    }
  });
});
