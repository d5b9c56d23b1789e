// The whole stack of the resilience suite: the stats service (demo data), a fault-injecting proxy in
// front of it, the Discord double, and the real bot process between them.
import { startDiscordDouble, type DiscordDouble, type DoubleOptions } from '../discord-double/index.js';
import { startBot, type BotProcess } from './bot.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { startService, type TestService } from './service.js';

export const STACK_TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.stack-token-abcdefghijklmnopqrstuv';

export interface Stack {
  service: TestService;
  proxy: FaultProxy;
  double: DiscordDouble;
  bot: BotProcess;
  close(): Promise<void>;
}

/** Starts everything and resolves once the bot is connected to the double. */
export async function startStack(botEnv: Record<string, string> = {}, doubleOptions: Omit<DoubleOptions, 'token'> = {}): Promise<Stack> {
  const service = await startService();
  const proxy = await startFaultProxy(service.url);
  const double = await startDiscordDouble({ ...doubleOptions, token: STACK_TOKEN });
  const bot = startBot({ DISCORD_TOKEN: STACK_TOKEN, DISCORD_API_URL: double.apiUrl, LOOKUP_BASE_URL: proxy.url, ...botEnv });
  await double.waitForReady(30_000);
  return {
    service,
    proxy,
    double,
    bot,
    close: async () => {
      bot.child.kill('SIGKILL');
      await double.close();
      await proxy.close();
      await service.close();
    },
  };
}
