// The double's multipart reader (body.ts readForm) against undici's own parser (what the double
// used before, and what Node's fetch uses): the same fields and files from the bodies the bot sends
// (its direct callbacks, and discord.js' FormData for edits), and Discord's 50035 for broken ones.
import { describe, expect, it } from 'vitest';

import { multipart } from '../../src/bot/direct-callbacks.js';
import { BodyError, readForm, type ParsedBody } from './body.js';

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 1), Buffer.from('\r\n--not-the-boundary\r\n')]);

/** What undici's parser reads from the same bytes, in the double's terms. */
async function byUndici(raw: Buffer, type: string): Promise<ParsedBody> {
  const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
  let body: unknown;
  const files: ParsedBody['files'] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      if (field === 'payload_json') body = JSON.parse(value);
    } else {
      const head = Buffer.from(await value.slice(0, 32).arrayBuffer()).toString('hex');
      files.push({ field, filename: value.name, contentType: value.type, size: value.size, head });
    }
  }
  return { body, files };
}

const payload = { type: 4, data: { content: 'é ✓', embeds: [{ image: { url: 'attachment://card.png' } }], attachments: [{ id: 0, filename: 'card.png' }] } };

describe('the double reads multipart bodies', () => {
  it('as undici does, from the bot’s own encoding', async () => {
    for (const files of [
      [{ name: 'card.png', data: png }],
      [
        { name: 'a.png', data: png },
        { name: 'b"c.png', data: Buffer.from('text') },
      ],
    ]) {
      const { body, contentType } = multipart(payload, files);
      const mine = readForm(body, contentType);
      expect(mine).toEqual(await byUndici(body, contentType));
      expect(mine.body).toEqual(payload);
      expect(mine.files[0]).toMatchObject({ field: 'files[0]', size: png.length, contentType: 'image/png' });
    }
  });

  it('as undici does, from a FormData as discord.js sends it', async () => {
    const form = new FormData();
    form.append('files[0]', new Blob([png], { type: 'image/png' }), 'card.png');
    form.append('payload_json', JSON.stringify(payload));
    const encoded = new Response(form);
    const type = encoded.headers.get('content-type') ?? '';
    const raw = Buffer.from(await encoded.arrayBuffer());
    expect(readForm(raw, type)).toEqual(await byUndici(raw, type));
  });

  it('refuses a broken form with Discord’s 50035', () => {
    const { body, contentType } = multipart(payload, [{ name: 'card.png', data: png }]);
    const broken = [
      [body.subarray(0, body.length - 20), contentType],
      [body, 'multipart/form-data'],
      [Buffer.concat([Buffer.from('junk'), body]), contentType],
      [Buffer.from(body.toString('latin1').replace('Content-Disposition: form-data; name="payload_json"', 'X'), 'latin1'), contentType],
    ] as const;
    for (const [raw, type] of broken) {
      let error: unknown;
      try {
        readForm(raw, type);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(BodyError);
      expect((error as BodyError).code).toBe(50035);
    }
  });
});
