import { DORMANT_CONCEPTS, REGISTERED_NUMBER_CONCEPTS } from './concepts';
import { deriveFiling } from './derive';
import { type EntryName, normalizeCompanyNumber, readEntryName } from './entry-name';
import type { FilingOutcome } from './filing';
import { type Instance, InstanceError, type QualifiedName } from './instance';
import { InstanceReader } from './instance-reader';
import { knownNamespace } from './namespaces';
import { Utf8Text } from './utf8-text';

/** A filing read as its bytes arrive: write the chunks, then end for the outcome. */
export interface FilingReader {
  write(chunk: Uint8Array | string): void;
  end(): FilingOutcome;
}

const COMPANY_NUMBER_IN_TEXT = /\b([A-Z]{2}\d{6}|\d{7,8})\b/;

/** The only text facts the figures read. */
const TEXT_CONCEPTS = new Set([...REGISTERED_NUMBER_CONCEPTS, ...DORMANT_CONCEPTS]);
const keepsText = (concept: QualifiedName) => TEXT_CONCEPTS.has(concept.localName);

/** The register number the document states about itself, if it states one. */
export function documentCompanyNumber(instance: Instance): string | undefined {
  for (const localName of REGISTERED_NUMBER_CONCEPTS) {
    for (const fact of instance.facts) {
      if (fact.concept.localName !== localName || !fact.text || !knownNamespace(fact.concept.namespace)) continue;
      const number = normalizeCompanyNumber(fact.text) ?? COMPANY_NUMBER_IN_TEXT.exec(fact.text.toUpperCase())?.[1];
      if (number) return normalizeCompanyNumber(number) ?? undefined;
    }
  }
  for (const context of instance.contexts.values()) {
    const number = context.entityIdentifier ? normalizeCompanyNumber(context.entityIdentifier) : null;
    if (number) return number;
  }
  return undefined;
}

function check(instance: Instance, name: EntryName): string | undefined {
  const stated = documentCompanyNumber(instance);
  if (stated && stated !== name.companyNumber) {
    return `the document is the accounts of company ${stated}, not ${name.companyNumber} as its name says`;
  }
  const ends = new Set<string>();
  for (const context of instance.contexts.values()) if (context.end) ends.add(context.end);
  if (!ends.has(name.balanceSheetDate)) {
    const listed = [...ends].sort().slice(-4).join(', ') || 'none';
    return `the balance-sheet date ${name.balanceSheetDate} in the name matches no period in the document (periods end ${listed})`;
  }
  if (instance.facts.length === 0) return 'the document holds no XBRL facts';
  return undefined;
}

const BLANK = /[\uFEFF\s]/;

/** Where the content starts past a byte-order mark and blank lines; the text's length when it is all blank. */
function contentStart(text: string): number {
  let index = 0;
  while (index < text.length && BLANK.test(text[index] as string)) index++;
  return index;
}

class StreamingFilingReader implements FilingReader {
  private readonly decoder = new Utf8Text();
  private readonly reader = new InstanceReader(keepsText);
  private started = false;
  private failure: string | undefined;
  private readonly take = (text: string) => this.text(text);

  constructor(
    private readonly entryName: string,
    private readonly name: EntryName | undefined,
    failure: string | undefined,
  ) {
    this.failure = failure;
  }

  write(chunk: Uint8Array | string): void {
    if (this.failure) return;
    if (typeof chunk === 'string') this.text(chunk);
    else this.decoder.decode(chunk, this.take);
  }

  private text(text: string): void {
    if (this.failure) return;
    try {
      if (!this.started) {
        const start = contentStart(text);
        if (start === text.length) return;
        this.started = true;
        if (text[start] !== '<') {
          this.failure = 'the content is neither XHTML nor XML (it does not start with markup)';
          return;
        }
      }
      this.reader.write(text);
    } catch (error) {
      this.failure = reason(error);
    }
  }

  end(): FilingOutcome {
    if (!this.failure && !this.started) this.failure = 'the entry is empty';
    if (this.failure || !this.name) return { ok: false, entryName: this.entryName, reason: this.failure ?? 'unreadable name' };
    try {
      const tail = this.decoder.end();
      if (tail) this.reader.write(tail);
      const instance = this.reader.end();
      const problem = check(instance, this.name);
      if (problem) return { ok: false, entryName: this.entryName, reason: problem };
      return {
        ok: true,
        filing: deriveFiling(instance, {
          entryName: this.entryName,
          companyNumber: this.name.companyNumber,
          balanceSheetDate: this.name.balanceSheetDate,
        }),
      };
    } catch (error) {
      return { ok: false, entryName: this.entryName, reason: reason(error) };
    }
  }
}

/** One unreadable document must not stop the thousands after it in the same file. */
function reason(error: unknown): string {
  if (error instanceof InstanceError) return error.message;
  return `the document could not be read (${error instanceof Error ? error.message : String(error)})`;
}

/** A reader for one entry. A name that is not an accounts entry's is refused before any content is read. */
export function filingReader(entryName: string): FilingReader {
  const name = readEntryName(entryName);
  return new StreamingFilingReader(entryName, name.ok ? name.name : undefined, name.ok ? undefined : name.reason);
}

/** The whole filing at once. */
export function readFiling(entryName: string, content: Uint8Array | string): FilingOutcome {
  const reader = filingReader(entryName);
  reader.write(content);
  return reader.end();
}
