// Interactions timed on the wire: a loopback capture by tcpdump (when it is installed) of the
// Discord double's port, read back as pcap. Each interaction's gateway frame leaves the double, and
// its callback reaches it, at the times the kernel stamped the packets: the round trip as Discord
// would see it, without the time the busy bench process (which runs the double) takes to wake up
// before it sends a frame or reads an answer.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Per interaction id: when the double's frame carrying it left (ms), and when its first callback arrived. */
export interface WireTimes {
  frames: Map<string, number>;
  callbacks: Map<string, number>;
}

export interface Capture {
  /** Stops the capture and reads what it caught (once: later calls get the same answer). */
  stop(): Promise<WireTimes>;
}

/**
 * Whether tcpdump is here and may capture loopback (the figure is left out otherwise): compiling a
 * filter for `lo` opens it, which fails without the right to capture.
 */
export const canCapture = (): boolean => spawnSync('tcpdump', ['-i', 'lo', '-d', 'tcp'], { stdio: 'ignore' }).status === 0;

/** Starts capturing TCP on loopback to and from `port`; resolves once tcpdump listens. */
export async function startCapture(port: number): Promise<Capture> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wire-'));
  const file = join(dir, 'wire.pcap');
  // The first 2 KB of each packet: a frame's interaction id and a callback's path come first, and
  // the cards' uploads are not copied whole (the capture shares the two cores with what it times).
  // Immediate mode: without it, the packets of the kernel's last unfilled block are lost at the stop.
  // Only the segments that can start what it times, filtered in the kernel so that the others
  // (the rest of each card's upload, the double's HTTP answers, acknowledgements) never wake it:
  // those to the double starting "POST", those from it starting a WebSocket text frame (0x81).
  const payload = '((tcp[12:1] & 0xf0) >> 2)';
  const filter = `tcp and ((dst port ${port} and tcp[${payload}:4] = 0x504f5354) or (src port ${port} and tcp[${payload}:1] = 0x81))`;
  const args = ['-i', 'lo', '--immediate-mode', '-s', '2048', '-B', '16384', '-n', '-w', file, filter];
  const child = spawn('tcpdump', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tcpdump did not start: ${stderr.trim()}`)), 10_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tcpdump stopped (exit ${code}): ${stderr.trim()}`));
    });
  });
  let stopped: Promise<WireTimes> | undefined;
  return {
    // Once: a second call (the bench's clean-up after a failure) gets the first one's answer.
    stop: () =>
      (stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGINT');
          await exited;
        }
        try {
          return readWire(readFileSync(file), port);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      })()),
  };
}

const FRAME_ID = /"id":"(\d{15,21})"/g;
const CALLBACK_ID = /\/interactions\/(\d{15,21})\//g;

/**
 * Reads a pcap of Ethernet-framed TCP (loopback on Linux): the first packet from `port` that
 * names an interaction id (a gateway frame: the double sends frames uncompressed) and the first
 * to `port` with a callback path naming it.
 */
export function readWire(pcap: Buffer, port: number): WireTimes {
  const times: WireTimes = { frames: new Map(), callbacks: new Map() };
  const magic = pcap.readUInt32LE(0);
  const nano = magic === 0xa1b23c4d;
  if (magic !== 0xa1b2c3d4 && !nano) throw new Error(`not a little-endian pcap (magic ${magic.toString(16)})`);
  if (pcap.readUInt32LE(20) !== 1) throw new Error(`link type ${pcap.readUInt32LE(20)}, not Ethernet`);
  for (let at = 24; at + 16 <= pcap.length;) {
    const ms = pcap.readUInt32LE(at) * 1000 + pcap.readUInt32LE(at + 4) / (nano ? 1e6 : 1e3);
    const length = pcap.readUInt32LE(at + 8);
    const packet = pcap.subarray(at + 16, at + 16 + length);
    at += 16 + length;
    // Ethernet (14 bytes), then IPv4 or IPv6 (no extension headers on loopback) carrying TCP.
    if (packet.length < 14 + 40) continue;
    const type = packet.readUInt16BE(12);
    const ip = type === 0x0800 && packet[14 + 9] === 6 ? 14 + ((packet[14] ?? 0) & 0x0f) * 4 : type === 0x86dd && packet[14 + 6] === 6 ? 14 + 40 : 0;
    if (ip === 0) continue;
    const tcp = ip + ((packet[ip + 12] ?? 0) >> 4) * 4;
    if (tcp >= packet.length) continue;
    const payload = packet.toString('latin1', tcp);
    const fromDouble = packet.readUInt16BE(ip) === port;
    const [pattern, into] = fromDouble ? [FRAME_ID, times.frames] : [CALLBACK_ID, times.callbacks];
    for (const m of payload.matchAll(pattern)) if (m[1] && !into.has(m[1])) into.set(m[1], ms);
  }
  return times;
}
