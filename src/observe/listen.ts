// Starts a server listening, as each of the bot's listeners does: resolves once it listens, with the
// port it got (a port of 0 picks a free one), or rejects with why it could not (the port taken).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listenOn(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
