// How an interaction is answered with nothing but its id and token, whichever transport brought it:
// the first answer (the interaction callback) goes the transport's way (the HTTP response, or a
// POST to the callback route for a gateway interaction), and everything after it (edits,
// follow-ups, deleting the original) through the interaction webhook, which needs the token only.
import { Routes, type REST } from 'discord.js';

import type { Reply } from '../embeds/index.js';
import { ANSWER_DEADLINE_MS, withinDeadline } from './answer-deadline.js';
import type { Answer, SentChoice } from './router.js';

const EPHEMERAL = 64;

/** The host's monotonic clock in milliseconds (two decimals): the same clock in every process, so a log's stamps can be set beside another process's. */
export const monotonicMs = (): number => Math.round(Number(process.hrtime.bigint() / 10_000n)) / 100;

export interface UploadFile {
  name: string;
  data: Buffer;
}

/** A reply as Discord's message JSON (no mentions ever) and the files it uploads. */
export function messageOf(reply: Reply, withFlags: boolean): { body: Record<string, unknown>; files: UploadFile[] } {
  const files = reply.files ?? [];
  return {
    body: {
      content: reply.content ?? '',
      embeds: reply.embeds,
      components: reply.components,
      allowed_mentions: { parse: [] },
      // Files replace the message's attachments: a page without a card drops the old one.
      attachments: files.map((f, i) => ({ id: i, filename: f.name })),
      ...(withFlags && reply.ephemeral ? { flags: EPHEMERAL } : {}),
    },
    files: files.map((f) => ({ name: f.name, data: f.data })),
  };
}

/**
 * Sends the interaction's first answer (a callback body, and files when the way carries them);
 * rejects with Discord's error when it refuses. It calls `written` as the answer goes out on the
 * connection (where the way can tell).
 */
export type FirstAnswer = (body: unknown, files: readonly UploadFile[], written: () => void) => Promise<void>;

export class WebhookAnswer implements Answer {
  /** True once the first answer went out. */
  acknowledged = false;
  /** True while a public "thinking…" message stands: a public defer, nothing edited in yet. */
  placeholder = false;
  /** True while a private "thinking…" stands: a private defer, nothing edited in yet. */
  thinkingPrivately = false;
  /** When the first answer went out on its connection (monotonicMs), where the way told. */
  writtenAt: number | undefined;
  private acking = false;
  private readonly sent: Promise<void>;
  private resolveSent!: () => void;

  /**
   * `carriesFiles`: whether the first answer may upload files (a callback POST may; an HTTP response,
   * JSON only, may not: a reply with a card is then deferred and its card sent by an edit).
   */
  constructor(
    private readonly first: FirstAnswer,
    private readonly carriesFiles: boolean,
    private readonly rest: REST,
    private readonly applicationId: string,
    private readonly token: string,
    /** Each edit, follow-up or delete settles within this (answer-deadline.ts). */
    private readonly deadlineMs = ANSWER_DEADLINE_MS,
  ) {
    this.sent = new Promise((resolve) => (this.resolveSent = resolve));
  }

  /** Resolves once the first answer is sent, or failed, or was abandoned. */
  get answered(): Promise<void> {
    return this.sent;
  }

  private async ack(body: unknown, files: readonly UploadFile[] = []): Promise<void> {
    if (this.acking) throw new Error('the interaction was already acknowledged');
    this.acking = true;
    try {
      await this.first(body, files, () => (this.writtenAt ??= monotonicMs()));
      this.acknowledged = true;
    } catch (e) {
      // Refused (an answer Discord would not take): the interaction can still be answered, with a notice.
      this.acking = false;
      throw e;
    } finally {
      this.resolveSent();
    }
  }

  /** Gives up on answering (nothing was acknowledged). */
  abandon(): void {
    this.resolveSent();
  }

  async reply(reply: Reply): Promise<void> {
    const { body, files } = messageOf(reply, true);
    if (files.length && !this.carriesFiles) {
      await this.ack({ type: 5, data: reply.ephemeral ? { flags: EPHEMERAL } : {} });
      return this.edit(reply);
    }
    return this.ack({ type: 4, data: body }, files);
  }

  async update(reply: Reply): Promise<void> {
    const { body, files } = messageOf(reply, false);
    if (files.length && !this.carriesFiles) {
      await this.ack({ type: 6 });
      return this.edit(reply);
    }
    return this.ack({ type: 7, data: body }, files);
  }

  async defer(ephemeral: boolean): Promise<void> {
    await this.ack({ type: 5, data: ephemeral ? { flags: EPHEMERAL } : {} });
    this.placeholder = !ephemeral;
    this.thinkingPrivately = ephemeral;
  }

  deferUpdate(): Promise<void> {
    return this.ack({ type: 6 });
  }

  choices(choices: SentChoice[]): Promise<void> {
    return this.ack({ type: 8, data: { choices } });
  }

  async edit(reply: Reply): Promise<void> {
    await this.sent;
    const { body, files } = messageOf(reply, false);
    const route = Routes.webhookMessage(this.applicationId, this.token, '@original');
    await withinDeadline('an edit of the answer', (signal) => this.rest.patch(route, { body, files, auth: false, signal }), this.deadlineMs);
    this.placeholder = false;
    this.thinkingPrivately = false;
  }

  async followUp(reply: Reply): Promise<void> {
    await this.sent;
    const { body, files } = messageOf(reply, true);
    const route = Routes.webhook(this.applicationId, this.token);
    await withinDeadline('a follow-up', (signal) => this.rest.post(route, { body, files, auth: false, signal }), this.deadlineMs);
  }

  async deleteOriginal(): Promise<void> {
    await this.sent;
    const route = Routes.webhookMessage(this.applicationId, this.token, '@original');
    await withinDeadline('deleting the answer', (signal) => this.rest.delete(route, { auth: false, signal }), this.deadlineMs);
    this.placeholder = false;
    this.thinkingPrivately = false;
  }
}
