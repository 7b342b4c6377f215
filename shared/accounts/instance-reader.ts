import { Parser } from 'htmlparser2';
import { type Decimal, negateDecimal, parseDecimal, scaleDecimal } from './decimal';
import type { Context, DimensionMember, Fact, Instance, QualifiedName, Unit } from './instance';
import { InstanceError } from './instance';
import { INLINE_XBRL, TRANSFORMATION_REGISTRIES, XBRLDI, XBRLI, XHTML, XSI } from './namespaces';
import { plainNumber, type TransformationLookup, transformation } from './transformations';

type Scope = Readonly<Record<string, string>>;
type Attributes = Record<string, string>;

/**
 * What an element is to the reader, settled once per name and scope: the page's own (XHTML); an
 * Inline XBRL element the reader acts on, or another one (`inline`: it still shows the document is
 * Inline XBRL); a part of a context or unit; a part of XBRL the reader passes over (`ignored`:
 * entity, period, segment, linkbase, XLink); or a taxonomy's concept, a fact in an XBRL instance.
 */
type ElementKind =
  | 'page'
  | 'nonFraction'
  | 'nonNumeric'
  | 'continuation'
  | 'exclude'
  | 'hidden'
  | 'inline'
  | 'context'
  | 'contextField'
  | 'member'
  | 'unit'
  | 'divide'
  | 'measure'
  | 'ignored'
  | 'concept';

interface ScopedName {
  readonly name: QualifiedName;
  readonly kind: ElementKind;
}

const INLINE_ELEMENTS: Readonly<Record<string, ElementKind>> = {
  nonFraction: 'nonFraction',
  nonNumeric: 'nonNumeric',
  continuation: 'continuation',
  exclude: 'exclude',
  hidden: 'hidden',
};

const INSTANCE_ELEMENTS: Readonly<Record<string, ElementKind>> = {
  context: 'context',
  identifier: 'contextField',
  instant: 'contextField',
  startDate: 'contextField',
  endDate: 'contextField',
  forever: 'contextField',
  explicitMember: 'member',
  typedMember: 'member',
  unit: 'unit',
  divide: 'divide',
  measure: 'measure',
};

/** A namespace scope with the names already resolved in it: element names, concepts and dimensions repeat thousands of times. */
interface ScopeInfo {
  readonly scope: Scope;
  readonly names: Map<string, ScopedName>;
  /** The frame of an element that is the page's own (div, span, td): shared, nothing to do on close. */
  readonly plain: Frame;
  /**
   * True when the default namespace is XHTML: an unprefixed element is then the page's own, known
   * without a lookup. Such elements are nearly all of a filing.
   */
  readonly unprefixedIsPage: boolean;
  /** The rule each format names: a filing repeats one or two formats thousands of times. */
  readonly formats: Map<string, TransformationLookup>;
}

interface Capture {
  readonly parts: string[];
  /** Text inside ix:exclude does not belong to a text fact. */
  readonly honoursExclude: boolean;
}

/** A context as its elements close; a fixed shape, as a filing holds hundreds of contexts. */
interface ContextBuilder {
  readonly id: string;
  readonly dimensions: DimensionMember[];
  identifier: string | undefined;
  scheme: string | undefined;
  startDate: string | undefined;
  endDate: string | undefined;
  instant: string | undefined;
  forever: string | undefined;
}

type ContextField = 'identifier' | 'instant' | 'startDate' | 'endDate' | 'forever';

interface UnitBuilder {
  readonly id: string;
  readonly measures: QualifiedName[];
  divide: boolean;
}

interface PendingText {
  readonly concept: QualifiedName;
  readonly contextRef: string;
  readonly nil: boolean;
  readonly hidden: boolean;
  readonly parts: string[];
  readonly constant?: string;
  readonly continuedAt?: string;
}

type FactStart = Omit<Fact, 'number' | 'text'>;

/**
 * What an open element asks of its end tag: data, not closures, as a filing opens thousands. Every
 * frame has the same four properties in the same order, so V8 gives them one shape and reading a
 * frame stays cheap; `subject` is what the kind of element builds.
 */
type Frame = { readonly info: ScopeInfo } & (
  | { readonly kind: 'plain' | 'exclude' | 'hidden'; readonly capture: undefined; readonly subject: undefined }
  | {
      readonly kind: 'nonFraction';
      readonly capture: Capture;
      readonly subject: { readonly fact: FactStart; readonly attributes: Attributes };
    }
  | { readonly kind: 'nonNumeric'; readonly capture: Capture | undefined; readonly subject: PendingText }
  | { readonly kind: 'continuation'; readonly capture: Capture; readonly subject: Attributes }
  | { readonly kind: 'xbrlFact'; readonly capture: Capture; readonly subject: FactStart }
  | { readonly kind: 'context'; readonly capture: undefined; readonly subject: ContextBuilder }
  | {
      readonly kind: 'contextField';
      readonly capture: Capture;
      readonly subject: { readonly context: ContextBuilder; readonly field: ContextField };
    }
  | {
      readonly kind: 'member';
      readonly capture: Capture;
      readonly subject: { readonly context: ContextBuilder; readonly dimension: QualifiedName; readonly typed: boolean };
    }
  | { readonly kind: 'unit'; readonly capture: undefined; readonly subject: UnitBuilder }
  | { readonly kind: 'measure'; readonly capture: Capture; readonly subject: UnitBuilder }
);

/** The text of a text fact whose text is not kept: never written to, as no capture holds it. */
const NO_PARTS: string[] = [];

const EMPTY_SCOPE: Scope = Object.freeze({ xml: 'http://www.w3.org/XML/1998/namespace' });

/**
 * The scopes documents open at their root, by their declarations in order, with the names already
 * resolved in each. Filings from one piece of software declare the same namespaces in the same way,
 * so a file of thousands of filings resolves each element and concept name once, not once a filing.
 * Bounded: the scopes least recently used go first, and a scope forgets its names past a bound.
 */
const ROOT_SCOPES = new Map<string, ScopeInfo>();
const MAX_ROOT_SCOPES = 64;
const MAX_NAMES_IN_SCOPE = 8192;
const ROOT = scopeInfo(EMPTY_SCOPE);
const XBRL_INFRASTRUCTURE = new Set([
  XBRLI,
  XBRLDI,
  'http://www.xbrl.org/2003/linkbase',
  'http://www.w3.org/1999/xlink',
  'http://www.xbrl.org/2003/XLink',
]);

function scopeInfo(scope: Scope): ScopeInfo {
  const info = {
    scope,
    names: new Map<string, ScopedName>(),
    unprefixedIsPage: scope[''] === XHTML,
    formats: new Map<string, TransformationLookup>(),
  } as Omit<ScopeInfo, 'plain'> & { plain: Frame };
  info.plain = { info, kind: 'plain', capture: undefined, subject: undefined };
  return info;
}

function kindOf({ namespace, localName }: QualifiedName): ElementKind {
  if (namespace === XHTML) return 'page';
  if (INLINE_XBRL.has(namespace)) return Object.hasOwn(INLINE_ELEMENTS, localName) ? (INLINE_ELEMENTS[localName] as ElementKind) : 'inline';
  if (namespace === XBRLI || namespace === XBRLDI) {
    return Object.hasOwn(INSTANCE_ELEMENTS, localName) ? (INSTANCE_ELEMENTS[localName] as ElementKind) : 'ignored';
  }
  return XBRL_INFRASTRUCTURE.has(namespace) ? 'ignored' : 'concept';
}

/** A name (element, concept, dimension) resolved in a scope, once per scope. */
function scopedName(info: ScopeInfo, written: string): ScopedName {
  let scoped = info.names.get(written);
  if (scoped === undefined) {
    const name = resolve(written, info.scope);
    scoped = { name, kind: kindOf(name) };
    if (info.names.size >= MAX_NAMES_IN_SCOPE) info.names.clear();
    info.names.set(written, scoped);
  }
  return scoped;
}

/**
 * Reads one XBRL or Inline XBRL document as it streams in, keeping contexts, units and facts and
 * nothing of the page around them. htmlparser2 in XML mode tokenizes (it tolerates the HTML entities
 * and stray markup real filings carry); the XBRL meaning — namespaces, ix elements, formats, scale,
 * sign, nil, hidden facts, continuations, dimensions — is read here.
 */
export class InstanceReader {
  private readonly parser: Parser;
  private readonly stack: Frame[] = [];
  private readonly captures: Capture[] = [];
  private excludeDepth = 0;
  private hiddenDepth = 0;
  private kind: 'ixbrl' | 'xbrl' | undefined;
  private sawInlineElement = false;
  private readonly contexts = new Map<string, Context>();
  private readonly units = new Map<string, Unit>();
  private readonly facts: Fact[] = [];
  private readonly pendingTexts: PendingText[] = [];
  private readonly continuations = new Map<string, { parts: string[]; continuedAt?: string }>();
  /** Prefix and namespace pairs declared on the element being opened. */
  private readonly declarations: string[] = [];
  /**
   * Whether the element being opened was taken for the page's own before its attributes (an
   * unprefixed name where the default namespace is XHTML), and its name and attributes, in case
   * its own declarations make it something else.
   */
  private provisional = false;
  private provisionalName = '';
  private readonly provisionalAttributes: string[] = [];
  /** How many of provisionalAttributes belong to the element being opened: counted, as emptying an array on every element costs more. */
  private provisionalLength = 0;
  private context: ContextBuilder | undefined;
  private unit: UnitBuilder | undefined;

  /**
   * @param keepsText which text facts to keep the text of. A filing wraps whole notes in
   * ix:nonNumeric; the figures need the text of a few facts only, and collecting the rest would be
   * most of the reading. The other text facts are kept, without their text.
   */
  constructor(private readonly keepsText: (concept: QualifiedName) => boolean = () => true) {
    this.parser = new Parser(this, { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true });
  }

  write(chunk: string): void {
    this.parser.write(chunk);
  }

  end(): Instance {
    this.parser.end();
    if (!this.kind) throw new InstanceError('the document has no root element');
    if (this.kind === 'ixbrl' && !this.sawInlineElement) throw new InstanceError('the XHTML document holds no Inline XBRL');
    for (const pending of this.pendingTexts) this.facts.push(this.textFact(pending));
    return { kind: this.kind, contexts: this.contexts, units: this.units, facts: this.facts };
  }

  /**
   * htmlparser2's handler: an attribute of the element being opened. Namespace declarations are
   * caught here, as they are parsed, rather than by walking every element's attributes again.
   */
  onattribute(name: string, value: string): void {
    if (this.provisional) {
      const kept = this.provisionalAttributes;
      kept[this.provisionalLength++] = name;
      kept[this.provisionalLength++] = value;
    }
    if (name.charCodeAt(0) === 120 /* x */ && name.startsWith('xmlns') && (name.length === 5 || name[5] === ':')) {
      this.declarations.push(name.length === 5 ? '' : name.slice(6), value);
      // Settled at the first event after its tag, text included.
      if (this.provisional) this.ontext = this.takeText;
    }
  }

  /**
   * htmlparser2's handler: an element's name, before its attributes. Nearly every element of a
   * filing is the page's own (div, span, td), and the parser builds an attributes object only for an
   * element whose opening a handler asks for: those get none. They are pushed here; any other
   * element is read when its attributes are known.
   */
  onopentagname(name: string): void {
    if (this.provisional) this.settle();
    const top = this.stack[this.stack.length - 1];
    const parent = top === undefined ? ROOT : top.info;
    if (parent.unprefixedIsPage && this.kind !== undefined && name.indexOf(':') < 0) {
      this.stack.push(parent.plain);
      this.provisional = true;
      this.provisionalName = name;
      this.provisionalLength = 0;
      this.onopentag = undefined;
    } else this.onopentag = this.openElement;
  }

  /** htmlparser2's handler for an element with its attributes, there only for the elements the reader reads. */
  onopentag: ((name: string, attributes: Attributes) => void) | undefined = undefined;

  private readonly openElement = (name: string, attributes: Attributes): void => {
    const top = this.stack[this.stack.length - 1];
    const parent = top === undefined ? ROOT : top.info;
    const info = this.declarations.length === 0 ? parent : this.declaredScope(parent);
    // The page's own elements (the XHTML namespace) carry nothing to read.
    if (info.unprefixedIsPage && this.kind !== undefined && name.indexOf(':') < 0) {
      this.stack.push(info.plain);
      return;
    }
    const element = scopedName(info, name);
    if (!this.kind) this.kind = rootKind(element.name);
    const { kind } = element;
    this.stack.push(kind === 'page' || kind === 'ignored' ? info.plain : this.open(element, attributes, info));
  };

  /**
   * The end of a tag taken for the page's own before its attributes. Its declarations open a scope
   * for what it holds; in the rare document where they also change its own default namespace, it is
   * read as any other element, from the attributes kept for that case.
   */
  private settle(): void {
    this.provisional = false;
    if (this.declarations.length === 0) return;
    const { info: parent } = this.stack.pop() as Frame;
    const info = this.declaredScope(parent);
    if (info.unprefixedIsPage) {
      this.stack.push(info.plain);
      return;
    }
    const attributes: Attributes = {};
    const kept = this.provisionalAttributes;
    for (let index = 0; index < this.provisionalLength; index += 2) {
      const attribute = kept[index] as string;
      if (!Object.hasOwn(attributes, attribute)) attributes[attribute] = kept[index + 1] as string;
    }
    const element = scopedName(info, this.provisionalName);
    const { kind } = element;
    this.stack.push(kind === 'page' || kind === 'ignored' ? info.plain : this.open(element, attributes, info));
  }

  /** htmlparser2's handler: an element closes. */
  onclosetag(): void {
    if (this.provisional) this.settle();
    const frame = this.stack.pop();
    if (frame === undefined || frame.kind === 'plain') return;
    if (frame.capture !== undefined) this.release(frame.capture);
    this.close(frame);
  }

  /**
   * htmlparser2's handler for text between tags, there only while some text is being captured. Text
   * events are the most frequent of all and nearly all fall outside any fact: the parser, which asks
   * for this handler at each one, then finds none and makes no call.
   */
  ontext: ((text: string) => void) | undefined = undefined;

  private readonly takeText = (text: string): void => {
    if (this.provisional) {
      this.settle();
      if (this.captures.length === 0) {
        this.ontext = undefined;
        return;
      }
    }
    const { captures } = this;
    const excluded = this.excludeDepth > 0;
    for (let index = 0; index < captures.length; index++) {
      const capture = captures[index] as Capture;
      if (excluded && capture.honoursExclude) continue;
      capture.parts.push(text);
    }
  };

  /**
   * The scope an element's declarations open. Software often repeats the document's declarations on
   * inner elements (a table, each fact); a scope that changes nothing keeps the parent's, with its
   * names already resolved.
   */
  private declaredScope(parent: ScopeInfo): ScopeInfo {
    const { declarations } = this;
    let changes = false;
    for (let index = 0; index < declarations.length && !changes; index += 2) {
      changes = parent.scope[declarations[index] as string] !== declarations[index + 1];
    }
    if (!changes) {
      declarations.length = 0;
      return parent;
    }
    if (parent !== ROOT) return scopeInfo(this.declare(parent.scope));
    let key = '';
    for (const part of declarations) key += `${part.length}:${part}`;
    let info = ROOT_SCOPES.get(key);
    if (info === undefined) {
      info = scopeInfo(this.declare(parent.scope));
      if (ROOT_SCOPES.size >= MAX_ROOT_SCOPES) ROOT_SCOPES.delete(ROOT_SCOPES.keys().next().value as string);
    } else {
      declarations.length = 0;
      ROOT_SCOPES.delete(key);
    }
    ROOT_SCOPES.set(key, info);
    return info;
  }

  /** The scope the pending declarations open within a parent scope. */
  private declare(parent: Scope): Scope {
    const { declarations } = this;
    const scope = Object.create(parent) as Record<string, string>;
    for (let index = 0; index < declarations.length; index += 2) {
      const prefix = declarations[index] as string;
      // The xml prefix is bound by definition, and real filings declare it again (to the same name).
      if (prefix !== 'xml') scope[prefix] = declarations[index + 1] as string;
    }
    declarations.length = 0;
    return scope;
  }

  private capture(honoursExclude = false): Capture {
    const capture = { parts: [], honoursExclude };
    if (this.captures.push(capture) === 1) this.ontext = this.takeText;
    return capture;
  }

  /** Captures close in the order they opened, short of stray markup. */
  private release(capture: Capture): void {
    const { captures } = this;
    if (captures[captures.length - 1] === capture) captures.pop();
    else {
      const index = captures.lastIndexOf(capture);
      if (index >= 0) captures.splice(index, 1);
    }
    if (captures.length === 0) this.ontext = undefined;
  }

  private open({ name, kind }: ScopedName, attributes: Attributes, info: ScopeInfo): Frame {
    switch (kind) {
      case 'nonFraction': {
        this.sawInlineElement = true;
        const concept = requiredName(attributes, info, 'ix:nonFraction');
        const contextRef = required(attributes, 'contextRef', concept);
        const fact = { concept, contextRef, unitRef: attributes.unitRef, nil: isNil(attributes, info.scope), hidden: this.hiddenDepth > 0 };
        return { info, kind: 'nonFraction', capture: this.capture(), subject: { fact, attributes } };
      }
      case 'nonNumeric': {
        this.sawInlineElement = true;
        const concept = requiredName(attributes, info, 'ix:nonNumeric');
        const contextRef = required(attributes, 'contextRef', concept);
        const rule = attributes.format ? formatRule(attributes.format, info, concept) : undefined;
        const capture = this.keepsText(concept) ? this.capture(true) : undefined;
        const pending: PendingText = {
          concept,
          contextRef,
          nil: isNil(attributes, info.scope),
          hidden: this.hiddenDepth > 0,
          parts: capture === undefined ? NO_PARTS : capture.parts,
          constant: rule?.kind === 'other' ? rule.constant : undefined,
          continuedAt: attributes.continuedAt,
        };
        return { info, kind: 'nonNumeric', capture, subject: pending };
      }
      case 'continuation':
        this.sawInlineElement = true;
        return { info, kind: 'continuation', capture: this.capture(true), subject: attributes };
      case 'exclude':
        this.sawInlineElement = true;
        this.excludeDepth++;
        return { info, kind: 'exclude', capture: undefined, subject: undefined };
      case 'hidden':
        this.sawInlineElement = true;
        this.hiddenDepth++;
        return { info, kind: 'hidden', capture: undefined, subject: undefined };
      case 'inline':
        this.sawInlineElement = true;
        return info.plain;
      case 'context': {
        const context: ContextBuilder = {
          id: attributes.id ?? '',
          dimensions: [],
          identifier: undefined,
          scheme: undefined,
          startDate: undefined,
          endDate: undefined,
          instant: undefined,
          forever: undefined,
        };
        this.context = context;
        return { info, kind: 'context', capture: undefined, subject: context };
      }
      case 'contextField': {
        const { context } = this;
        if (!context) return info.plain;
        const field = name.localName as ContextField;
        if (field === 'identifier' && attributes.scheme) context.scheme = attributes.scheme;
        return { info, kind: 'contextField', capture: this.capture(), subject: { context, field } };
      }
      case 'member': {
        const { context } = this;
        if (!context || !attributes.dimension) return info.plain;
        const dimension = scopedName(info, attributes.dimension).name;
        const typed = name.localName === 'typedMember';
        return { info, kind: 'member', capture: this.capture(), subject: { context, dimension, typed } };
      }
      case 'unit': {
        const unit = { id: attributes.id ?? '', measures: [], divide: false };
        this.unit = unit;
        return { info, kind: 'unit', capture: undefined, subject: unit };
      }
      case 'divide':
        if (this.unit) this.unit.divide = true;
        return info.plain;
      case 'measure':
        return this.unit ? { info, kind: 'measure', capture: this.capture(), subject: this.unit } : info.plain;
      case 'concept':
        if (this.kind === 'xbrl' && attributes.contextRef !== undefined) {
          const nil = isNil(attributes, info.scope);
          const fact = { concept: name, contextRef: attributes.contextRef, unitRef: attributes.unitRef, nil, hidden: false };
          return { info, kind: 'xbrlFact', capture: this.capture(), subject: fact };
        }
        return info.plain;
      default:
        return info.plain;
    }
  }

  private close(frame: Frame): void {
    switch (frame.kind) {
      case 'exclude':
        this.excludeDepth--;
        return;
      case 'hidden':
        this.hiddenDepth--;
        return;
      case 'nonFraction': {
        const { capture, info } = frame;
        const { fact, attributes } = frame.subject;
        const { concept, contextRef, unitRef, nil, hidden } = fact;
        const number = nil ? null : inlineNumber(capture.parts.join(''), attributes, info, concept, contextRef);
        this.facts.push({ concept, contextRef, unitRef, nil, hidden, number });
        return;
      }
      case 'nonNumeric':
        this.pendingTexts.push(frame.subject);
        return;
      case 'continuation': {
        const attributes = frame.subject;
        if (attributes.id) this.continuations.set(attributes.id, { parts: frame.capture.parts, continuedAt: attributes.continuedAt });
        return;
      }
      case 'xbrlFact':
        this.facts.push(xbrlFact(frame.subject, frame.capture.parts.join('').trim()));
        return;
      case 'context': {
        const { id, dimensions, identifier, scheme, startDate, endDate, instant, forever } = frame.subject;
        this.contexts.set(id, {
          id,
          entityIdentifier: identifier,
          entityScheme: scheme,
          start: startDate,
          end: endDate ?? instant,
          forever: forever !== undefined,
          dimensions,
        });
        this.context = undefined;
        return;
      }
      case 'contextField': {
        const { context, field } = frame.subject;
        context[field] = frame.capture.parts.join('').trim();
        return;
      }
      case 'member': {
        const { context, dimension, typed } = frame.subject;
        const text = frame.capture.parts.join('').trim();
        context.dimensions.push({ dimension, member: typed ? text : localNameOf(text), typed });
        return;
      }
      case 'unit':
        this.units.set(frame.subject.id, frame.subject);
        this.unit = undefined;
        return;
      case 'measure':
        frame.subject.measures.push(resolve(frame.capture.parts.join('').trim(), frame.info.scope));
        return;
      default:
        return;
    }
  }

  private textFact(pending: PendingText): Fact {
    const parts = [...pending.parts];
    const seen = new Set<string>();
    let next = pending.continuedAt;
    while (next && !seen.has(next)) {
      seen.add(next);
      const continuation = this.continuations.get(next);
      if (!continuation) break;
      parts.push(...continuation.parts);
      next = continuation.continuedAt;
    }
    const text = pending.nil ? undefined : (pending.constant ?? parts.join('').replace(/\s+/g, ' ').trim());
    return { concept: pending.concept, contextRef: pending.contextRef, nil: pending.nil, hidden: pending.hidden, text };
  }
}

/** A fact of an XBRL instance: an element in a taxonomy's namespace; numeric when it names a unit. */
function xbrlFact(fact: Omit<Fact, 'number' | 'text'>, raw: string): Fact {
  if (fact.unitRef === undefined) return { ...fact, text: fact.nil ? undefined : raw.replace(/\s+/g, ' ') };
  if (fact.nil) return { ...fact, number: null };
  const parsed = parseDecimal(raw.replace(/^[-+]/, ''));
  if (!parsed) throw new InstanceError(`${fact.concept.written} in context ${fact.contextRef}: "${raw}" is not a number`);
  return { ...fact, number: raw.startsWith('-') ? negateDecimal(parsed) : parsed };
}

/** Unprefixed names take the default namespace, in element names and in QName values alike. */
function resolve(written: string, scope: Scope): QualifiedName {
  const colon = written.indexOf(':');
  const prefix = colon < 0 ? '' : written.slice(0, colon);
  return { namespace: scope[prefix] ?? '', localName: localNameOf(written), written };
}

function localNameOf(written: string): string {
  const colon = written.indexOf(':');
  return colon < 0 ? written : written.slice(colon + 1);
}

function rootKind(root: QualifiedName): 'ixbrl' | 'xbrl' {
  if (root.localName === 'html') return 'ixbrl';
  if (root.localName === 'xbrl' && root.namespace === XBRLI) return 'xbrl';
  throw new InstanceError(`the document is neither XHTML nor an XBRL instance (its root element is <${root.written}>)`);
}

function requiredName(attributes: Attributes, info: ScopeInfo, element: string): QualifiedName {
  const name = attributes.name;
  if (!name) throw new InstanceError(`an ${element} has no name`);
  return scopedName(info, name).name;
}

function required(attributes: Attributes, attribute: string, concept: QualifiedName): string {
  const value = attributes[attribute];
  if (!value) throw new InstanceError(`${concept.written} has no ${attribute}`);
  return value;
}

function isNil(attributes: Attributes, scope: Scope): boolean {
  for (const name in attributes) {
    if (name.endsWith(':nil') && scope[name.slice(0, -4)] === XSI) return attributes[name] === 'true' || attributes[name] === '1';
  }
  return false;
}

/** The rule a format names; looked up once per scope. */
function formatRule(format: string, info: ScopeInfo, concept: QualifiedName): TransformationLookup {
  let rule = info.formats.get(format);
  if (!rule) {
    const name = resolve(format.trim(), info.scope);
    rule = TRANSFORMATION_REGISTRIES.has(name.namespace) ? transformation(name.localName) : { kind: 'unknown' };
    info.formats.set(format, rule);
  }
  if (rule.kind === 'unknown') throw new InstanceError(`${concept.written} uses the unknown transformation "${format}"`);
  return rule;
}

function inlineNumber(text: string, attributes: Attributes, info: ScopeInfo, concept: QualifiedName, contextRef: string): Decimal {
  let value: Decimal | null;
  if (attributes.format) {
    const rule = formatRule(attributes.format, info, concept);
    if (rule.kind !== 'numeric') {
      throw new InstanceError(`${concept.written} uses the transformation "${attributes.format}", which does not give a number`);
    }
    value = rule.apply(text);
  } else value = plainNumber(text);
  if (!value) {
    throw new InstanceError(
      `${concept.written} in context ${contextRef}: "${text.trim()}" is not a number${attributes.format ? ` in the format ${attributes.format}` : ''}`,
    );
  }
  const scale = attributes.scale === undefined ? 0 : Number(attributes.scale);
  if (!Number.isInteger(scale)) throw new InstanceError(`${concept.written} has the scale "${attributes.scale}", not a whole number`);
  if (scale !== 0) value = scaleDecimal(value, scale);
  return attributes.sign === '-' ? negateDecimal(value) : value;
}
