import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times: 100 on Linux for every architecture Node runs on here. */
const TICKS_PER_SECOND = 100;

/** The process and its descendants, from /proc's parent links. */
function familyOf(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (!stat) continue;
    parents.set(stat.ppid, [...(parents.get(stat.ppid) ?? []), Number(entry)]);
  }
  const family = [pid];
  for (let at = 0; at < family.length; at++) family.push(...(parents.get(family[at] as number) ?? []));
  return family;
}

function statOf(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    // The command name may hold spaces and parentheses: fields are counted after its closing one.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

const ticksOf = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + (statOf(pid)?.ticks ?? 0), 0);

/**
 * Waits until the runtime and its children (DynamoDB Local among them) use under `share` of one core
 * for `windowMs` (an idle runtime's pollers use about 15 %; a write load keeps the engine near 100 %), so that a measurement does not share the engine with the stream work an earlier
 * one left behind. Answers the seconds until it went quiet; gives up after `timeoutMs`, saying so.
 */
export async function untilQuiet(
  pid: number,
  { share = 0.35, windowMs = 3_000, timeoutMs = 180_000 }: { share?: number; windowMs?: number; timeoutMs?: number } = {},
): Promise<{ seconds: number; quiet: boolean }> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const family = familyOf(pid);
    const before = ticksOf(family);
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const used = (ticksOf(family) - before) / TICKS_PER_SECOND / (windowMs / 1000);
    // Quiet from the start of the window that showed it.
    if (used < share) return { seconds: (performance.now() - started - windowMs) / 1000, quiet: true };
  }
  return { seconds: (performance.now() - started) / 1000, quiet: false };
}
