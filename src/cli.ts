// What every command of the project does at its edge: one clear line on stderr and a non-zero exit
// for what the user must fix (an argument, a setting), instead of a stack trace.
import { ConfigError } from './config.js';

export function exitWith(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** Loads configuration, or exits with the line that names the bad variable. */
export function configOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (e) {
    if (e instanceof ConfigError) exitWith(e.message);
    throw e;
  }
}
