/**
 * Run configuration, parsed once from the bench process's argv:
 *   --quick            whole run under two minutes (smaller sizes, 3 rounds)
 *   --only <substr>    only scenarios whose name (or file name) contains substr (case-insensitive)
 *   --rounds <n>       override the number of alternating rounds
 * Child processes never read this: they get their sizes as explicit arguments.
 */
const argv = process.argv.slice(2);

function flagValue(name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

export const QUICK = argv.includes('--quick');
export const ONLY = flagValue('--only')?.toLowerCase();
export const ROUNDS = Number(flagValue('--rounds') ?? (QUICK ? 3 : 5));

/** Picks the quick-mode or full-mode size. */
export const pick = <T>(quick: T, full: T): T => (QUICK ? quick : full);
