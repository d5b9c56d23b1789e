// The limits Discord enforces on what a bot sends, answered the way Discord answers them (400 with
// code 50035 and nested `_errors`). Only the limits a stats bot can plausibly trip are checked; the
// point is that a reply Discord would refuse is refused here too, not a full schema.

import { Locale } from 'discord.js';

export interface FieldError {
  path: (string | number)[];
  code: string;
  message: string;
}

export interface DiscordError {
  status: number;
  body: { message: string; code: number; errors?: unknown };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function maxLength(errors: FieldError[], path: (string | number)[], value: unknown, max: number, required = false): number {
  if (value === undefined || value === null) {
    if (required) errors.push({ path, code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
    return 0;
  }
  if (typeof value !== 'string') {
    errors.push({ path, code: 'STRING_TYPE_CONVERT', message: 'Could not interpret value as string.' });
    return 0;
  }
  if (required && value.length === 0) {
    errors.push({ path, code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
  } else if (value.length > max) {
    errors.push({ path, code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${max} or fewer in length.` });
  }
  return value.length;
}

function maxItems(errors: FieldError[], path: (string | number)[], value: unknown, max: number): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.push({ path, code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' });
    return [];
  }
  if (value.length > max) errors.push({ path, code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${max} or fewer in length.` });
  return value as unknown[];
}

/** Discord takes http(s) (and attachment://) URLs in embeds, and refuses the message for any other. */
function urlErrors(errors: FieldError[], path: (string | number)[], value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || /\s/.test(value) || !URL.canParse(value)) {
    errors.push({ path, code: 'URL_TYPE_INVALID_URL', message: 'Not a well formed URL.' });
    return;
  }
  const scheme = new URL(value).protocol.slice(0, -1);
  if (!['http', 'https', 'attachment'].includes(scheme))
    errors.push({ path, code: 'URL_TYPE_INVALID_SCHEME', message: `Scheme "${scheme}" is not supported. Scheme must be one of ('http', 'https').` });
}

function embedErrors(errors: FieldError[], path: (string | number)[], embed: unknown): number {
  if (!isRecord(embed)) {
    errors.push({ path, code: 'MODEL_TYPE_CONVERT', message: 'Only dictionaries may be used in a ModelType' });
    return 0;
  }
  let total = 0;
  urlErrors(errors, [...path, 'url'], embed.url);
  if (isRecord(embed.thumbnail)) urlErrors(errors, [...path, 'thumbnail', 'url'], embed.thumbnail.url);
  if (isRecord(embed.image)) urlErrors(errors, [...path, 'image', 'url'], embed.image.url);
  if (isRecord(embed.author)) urlErrors(errors, [...path, 'author', 'icon_url'], embed.author.icon_url);
  if (isRecord(embed.footer)) urlErrors(errors, [...path, 'footer', 'icon_url'], embed.footer.icon_url);
  total += maxLength(errors, [...path, 'title'], embed.title, 256);
  total += maxLength(errors, [...path, 'description'], embed.description, 4096);
  if (isRecord(embed.footer)) total += maxLength(errors, [...path, 'footer', 'text'], embed.footer.text, 2048, true);
  if (isRecord(embed.author)) total += maxLength(errors, [...path, 'author', 'name'], embed.author.name, 256, true);
  maxItems(errors, [...path, 'fields'], embed.fields, 25).forEach((field, i) => {
    const at = [...path, 'fields', i];
    if (!isRecord(field)) {
      errors.push({ path: at, code: 'MODEL_TYPE_CONVERT', message: 'Only dictionaries may be used in a ModelType' });
      return;
    }
    total += maxLength(errors, [...at, 'name'], field.name, 256, true);
    total += maxLength(errors, [...at, 'value'], field.value, 1024, true);
  });
  return total;
}

// Components V2 messages (flag 1 << 15) have their own, much looser layout rules.
const IS_COMPONENTS_V2 = 1 << 15;

function componentErrors(errors: FieldError[], components: unknown, flags: number): void {
  if ((flags & IS_COMPONENTS_V2) !== 0) return;
  maxItems(errors, ['components'], components, 5).forEach((row, i) => {
    const at: (string | number)[] = ['components', i];
    if (!isRecord(row) || row.type !== 1) {
      errors.push({ path: [...at, 'type'], code: 'BASE_TYPE_CHOICES', message: 'Value must be one of {1}.' });
      return;
    }
    const children = maxItems(errors, [...at, 'components'], row.components, 5);
    if (children.length === 0) {
      errors.push({ path: [...at, 'components'], code: 'BASE_TYPE_MIN_LENGTH', message: 'Must be 1 or more in length.' });
    }
    children.forEach((child, j) => {
      const cat = [...at, 'components', j];
      if (!isRecord(child)) return;
      // Link (5) and premium (6) buttons carry no custom id; every other component needs one.
      const needsId = !(child.type === 2 && (child.style === 5 || child.style === 6));
      maxLength(errors, [...cat, 'custom_id'], child.custom_id, 100, needsId);
      if (child.type === 2) maxLength(errors, [...cat, 'label'], child.label, 80);
      if (child.type === 3) maxItems(errors, [...cat, 'options'], child.options, 25);
    });
  });
}

/** Problems with a message body (create or edit); a callback nests them under `data`. */
export function messageErrors(body: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  maxLength(errors, ['content'], body.content, 2000);
  let total = 0;
  maxItems(errors, ['embeds'], body.embeds, 10).forEach((embed, i) => {
    total += embedErrors(errors, ['embeds', i], embed);
  });
  if (total > 6000) errors.push({ path: ['embeds'], code: 'MAX_EMBED_SIZE_EXCEEDED', message: 'Embed size exceeds maximum size of 6000' });
  const flags = typeof body.flags === 'number' ? body.flags : 0;
  if (body.components !== undefined) componentErrors(errors, body.components, flags);
  return errors;
}

/**
 * Problems with a channel post's nonce: a string of at most 25 characters or an integer, and
 * `enforce_nonce` a boolean.
 */
export function nonceProblems(body: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  if (!Number.isInteger(body.nonce)) maxLength(errors, ['nonce'], body.nonce, 25);
  if (body.enforce_nonce !== undefined && typeof body.enforce_nonce !== 'boolean')
    errors.push({ path: ['enforce_nonce'], code: 'BOOLEAN_TYPE_CONVERT', message: 'Must be either true or false.' });
  return errors;
}

/** Whether a message (as it would stand) has nothing to show, which Discord answers with 50006. */
export function isEmptyMessage(message: Record<string, unknown>, hasFiles: boolean): boolean {
  const nonEmpty = (v: unknown) => (typeof v === 'string' ? v.length > 0 : Array.isArray(v) ? v.length > 0 : v != null);
  return !hasFiles && !['content', 'embeds', 'components', 'attachments', 'poll', 'sticker_ids'].some((k) => nonEmpty(message[k]));
}

export function choicesErrors(data: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (!isRecord(data)) return [{ path: [], code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }];
  maxItems(errors, ['choices'], data.choices, 25).forEach((choice, i) => {
    if (!isRecord(choice)) return;
    maxLength(errors, ['choices', i, 'name'], choice.name, 100, true);
    if (typeof choice.value === 'string') maxLength(errors, ['choices', i, 'value'], choice.value, 100);
  });
  return errors;
}

const COMMAND_NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const LOCALES = new Set<string>(Object.values(Locale));

/** Localized names and descriptions as Discord checks them: known locales, valid names, lengths; names unique per locale among siblings. */
function localizationErrors(errors: FieldError[], at: (string | number)[], item: Record<string, unknown>, siblings?: Map<string, Set<string>>): void {
  const names = item.name_localizations;
  if (names !== undefined && names !== null) {
    if (!isRecord(names))
      errors.push({ path: [...at, 'name_localizations'], code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType' });
    else
      for (const [locale, value] of Object.entries(names)) {
        if (!LOCALES.has(locale))
          errors.push({ path: [...at, 'name_localizations', locale], code: 'ENUM_TYPE_COERCE', message: `Value "${locale}" is not a valid enum value.` });
        else if (value === null) continue;
        else if (typeof value !== 'string' || !COMMAND_NAME.test(value) || value !== value.toLowerCase())
          errors.push({ path: [...at, 'name_localizations', locale], code: 'APPLICATION_COMMAND_INVALID_NAME', message: 'Command name is invalid' });
        else if (siblings) {
          const seen = siblings.get(locale) ?? new Set<string>();
          if (seen.has(value))
            errors.push({
              path: [...at, 'name_localizations', locale],
              code: 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS',
              message: 'Option name already exists',
            });
          seen.add(value);
          siblings.set(locale, seen);
        }
      }
  }
  const descriptions = item.description_localizations;
  if (descriptions !== undefined && descriptions !== null) {
    if (!isRecord(descriptions))
      errors.push({ path: [...at, 'description_localizations'], code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType' });
    else
      for (const [locale, value] of Object.entries(descriptions)) {
        if (!LOCALES.has(locale))
          errors.push({
            path: [...at, 'description_localizations', locale],
            code: 'ENUM_TYPE_COERCE',
            message: `Value "${locale}" is not a valid enum value.`,
          });
        else if (value !== null) maxLength(errors, [...at, 'description_localizations', locale], value, 100, true);
      }
  }
}

function commandOptionErrors(errors: FieldError[], path: (string | number)[], options: unknown, depth: number): void {
  const names = new Set<string>();
  const localized = new Map<string, Set<string>>();
  maxItems(errors, path, options, 25).forEach((option, i) => {
    const at = [...path, i];
    if (!isRecord(option)) return;
    localizationErrors(errors, at, option, localized);
    if (typeof option.name !== 'string' || !COMMAND_NAME.test(option.name) || option.name !== option.name.toLowerCase()) {
      errors.push({ path: [...at, 'name'], code: 'APPLICATION_COMMAND_INVALID_NAME', message: 'Command name is invalid' });
    } else if (names.has(option.name)) {
      errors.push({ path: [...at, 'name'], code: 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', message: 'Option name already exists' });
    } else names.add(option.name);
    maxLength(errors, [...at, 'description'], option.description, 100, true);
    if ((option.type === 1 || option.type === 2) && depth < 2) commandOptionErrors(errors, [...at, 'options'], option.options, depth + 1);
    if (Array.isArray(option.choices))
      maxItems(errors, [...at, 'choices'], option.choices, 25).forEach((choice, c) => {
        if (!isRecord(choice)) return;
        maxLength(errors, [...at, 'choices', c, 'name'], choice.name, 100, true);
        if (isRecord(choice.name_localizations))
          for (const [locale, value] of Object.entries(choice.name_localizations))
            if (!LOCALES.has(locale))
              errors.push({
                path: [...at, 'choices', c, 'name_localizations', locale],
                code: 'ENUM_TYPE_COERCE',
                message: `Value "${locale}" is not a valid enum value.`,
              });
            else if (value !== null) maxLength(errors, [...at, 'choices', c, 'name_localizations', locale], value, 100, true);
      });
  });
}

/** Problems with a bulk-overwrite body: names, descriptions and option limits as Discord checks them. */
export function commandListErrors(body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (!Array.isArray(body)) return [{ path: [], code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' }];
  if (body.length > 100) errors.push({ path: [], code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 100 or fewer in length.' });
  const names = new Set<string>();
  (body as unknown[]).forEach((command, i) => {
    if (!isRecord(command)) {
      errors.push({ path: [i], code: 'MODEL_TYPE_CONVERT', message: 'Only dictionaries may be used in a ModelType' });
      return;
    }
    const type = typeof command.type === 'number' ? command.type : 1;
    const name = command.name;
    if (typeof name !== 'string' || (type === 1 && (!COMMAND_NAME.test(name) || name !== name.toLowerCase()))) {
      errors.push({ path: [i, 'name'], code: 'APPLICATION_COMMAND_INVALID_NAME', message: 'Command name is invalid' });
    } else if (names.has(`${type}:${name}`)) {
      errors.push({ path: [i, 'name'], code: 'APPLICATION_COMMANDS_DUPLICATE_NAME', message: `Application command names must be unique` });
    } else names.add(`${type}:${name}`);
    localizationErrors(errors, [i], command);
    if (type === 1) {
      maxLength(errors, [i, 'description'], command.description, 100, true);
      commandOptionErrors(errors, [i, 'options'], command.options, 0);
    }
  });
  return errors;
}

/** Discord's 400 for a body it cannot accept: errors nested by path, each leaf holding `_errors`. */
export function invalidFormBody(errors: FieldError[], prefix: (string | number)[] = []): DiscordError {
  const tree: Record<string, unknown> = {};
  for (const e of errors) {
    let node = tree;
    for (const key of [...prefix, ...e.path]) {
      const k = String(key);
      const next = node[k];
      if (isRecord(next)) node = next;
      else {
        const created: Record<string, unknown> = {};
        node[k] = created;
        node = created;
      }
    }
    const list = Array.isArray(node._errors) ? (node._errors as unknown[]) : [];
    list.push({ code: e.code, message: e.message });
    node._errors = list;
  }
  return { status: 400, body: { message: 'Invalid Form Body', code: 50035, errors: tree } };
}
