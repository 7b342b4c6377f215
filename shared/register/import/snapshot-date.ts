/**
 * The snapshot date a register file's name carries, as the registers name them:
 * "BasicCompanyDataAsOneFile-2024-02-01.zip", "BasicCompanyData-2024-02-01-part1_7.csv".
 */
export function snapshotDateOf(fileName: string): string | undefined {
  for (const match of fileName.matchAll(/(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)/g)) {
    const iso = `${match[1]}-${match[2]}-${match[3]}`;
    const date = new Date(`${iso}T00:00:00Z`);
    if (!Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso) return iso;
  }
  return undefined;
}

/** "YYYY-MM-DD" naming a real day. */
export const isIsoDate = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text) && snapshotDateOf(text) === text;
