/**
 * The AWS SDK warns on every start that releases after early January 2027 will need Node ≥22. We pin Node 20 on
 * purpose (see README) and the warning buries the demo's and the CLI's output, so this one warning type is
 * dropped; every other process warning is printed as usual. Import it first in entry points.
 */
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  // The SDK emits it as a plain message that starts with its name.
  const text = typeof warning === 'string' ? warning : warning.message;
  if (text.startsWith('NodeVersionSupportWarning')) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;
