// The only reader of process.env: each process's settings as a zod schema, parsed once at start.
// A missing or malformed variable is one clear line naming it.
import { z } from 'zod';

const list = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0));

const count = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return 0;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) {
      ctx.addIssue({ code: 'custom', message: 'must be a whole number (0 for none)' });
      return z.NEVER;
    }
    return n;
  });

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const ServiceConfigSchema = z.object({
  /** Keys a caller must send in `TRN-Api-Key`; none means the service is open. */
  SERVICE_API_KEYS: list,
  /** Requests a minute per key (per address when there are no keys); 0 for no limit. */
  SERVICE_RATE_LIMIT_PER_MINUTE: count,
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
});
export type ServiceConfig = z.infer<typeof ServiceConfigSchema>;

export class ConfigError extends Error {}

/** Parses the variables a schema names; the error names the first bad one (never its value). */
export function parseConfig<T extends z.ZodType>(schema: T, env: Record<string, string | undefined> = process.env): z.infer<T> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue?.path[0] ?? 'environment');
  throw new ConfigError(`Configuration: ${name} ${issue?.message ?? 'is invalid'}`);
}

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): ServiceConfig {
  return parseConfig(ServiceConfigSchema, env);
}
