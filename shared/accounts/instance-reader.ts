import { Parser } from 'htmlparser2';
import { type Decimal, negateDecimal, parseDecimal, scaleDecimal } from './decimal';
import type { Context, DimensionMember, Fact, Instance, QualifiedName, Unit } from './instance';
import { InstanceError } from './instance';
import { INLINE_XBRL, TRANSFORMATION_REGISTRIES, XBRLDI, XBRLI, XHTML, XSI } from './namespaces';
import { plainNumber, type TransformationLookup, transformation } from './transformations';

type Scope = Readonly<Record<string, string>>;
type Attributes = Record<string, string>;

/** A namespace scope with the names already resolved in it: element names repeat thousands of times. */
interface ScopeInfo {
  readonly scope: Scope;
  readonly names: Map<string, QualifiedName>;
  /** The frame of an element that is the page's own (div, span, td): shared, nothing to do on close. */
  readonly plain: Frame;
}

interface Capture {
  readonly parts: string[];
  /** Text inside ix:exclude does not belong to a text fact. */
  readonly honoursExclude: boolean;
}

interface ContextBuilder {
  readonly id: string;
  readonly dimensions: DimensionMember[];
  readonly fields: Record<string, string>;
}

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

/** What an open element asks of its end tag; frames carry data, not closures, as a filing opens thousands. */
type Frame = { readonly info: ScopeInfo } & (
  | { readonly kind: 'plain' | 'exclude' | 'hidden' }
  | { readonly kind: 'nonFraction'; readonly capture: Capture; readonly fact: Omit<Fact, 'number'>; readonly attributes: Attributes }
  | { readonly kind: 'nonNumeric'; readonly capture: Capture; readonly pending: PendingText }
  | { readonly kind: 'continuation'; readonly capture: Capture; readonly attributes: Attributes }
  | { readonly kind: 'xbrlFact'; readonly capture: Capture; readonly fact: Omit<Fact, 'number' | 'text'> }
  | { readonly kind: 'context'; readonly context: ContextBuilder }
  | { readonly kind: 'contextField'; readonly capture: Capture; readonly context: ContextBuilder; readonly field: string }
  | {
      readonly kind: 'member';
      readonly capture: Capture;
      readonly context: ContextBuilder;
      readonly dimension: QualifiedName;
      readonly typed: boolean;
    }
  | { readonly kind: 'unit'; readonly unit: UnitBuilder }
  | { readonly kind: 'measure'; readonly capture: Capture; readonly unit: UnitBuilder }
);

const EMPTY_SCOPE: Scope = Object.freeze({ xml: 'http://www.w3.org/XML/1998/namespace' });
const XBRL_INFRASTRUCTURE = new Set([
  XBRLI,
  XBRLDI,
  'http://www.xbrl.org/2003/linkbase',
  'http://www.w3.org/1999/xlink',
  'http://www.xbrl.org/2003/XLink',
]);

function scopeInfo(scope: Scope): ScopeInfo {
  const info = { scope, names: new Map<string, QualifiedName>() } as { scope: Scope; names: Map<string, QualifiedName>; plain: Frame };
  info.plain = { info, kind: 'plain' };
  return info;
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
  private readonly root = scopeInfo(EMPTY_SCOPE);
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
    if (name.charCodeAt(0) === 120 /* x */ && name.startsWith('xmlns') && (name.length === 5 || name[5] === ':')) {
      this.declarations.push(name.length === 5 ? '' : name.slice(6), value);
    }
  }

  /** htmlparser2's handler: an element opens. */
  onopentag(name: string, attributes: Attributes): void {
    const parent = this.stack[this.stack.length - 1]?.info ?? this.root;
    const info = this.declarations.length === 0 ? parent : this.declaredScope(parent);
    let element = info.names.get(name);
    if (!element) {
      element = resolve(name, info.scope);
      info.names.set(name, element);
    }
    if (!this.kind) this.kind = rootKind(element);
    // The page's own elements (the XHTML namespace) carry nothing to read.
    this.stack.push(element.namespace === XHTML ? info.plain : this.open(element, attributes, info));
  }

  /** htmlparser2's handler: an element closes. */
  onclosetag(): void {
    const frame = this.stack.pop();
    if (!frame || frame.kind === 'plain') return;
    if ('capture' in frame) {
      const index = this.captures.lastIndexOf(frame.capture);
      if (index >= 0) this.captures.splice(index, 1);
    }
    this.close(frame);
  }

  /** htmlparser2's handler: text between tags. */
  ontext(text: string): void {
    // Text events are the most frequent of all, and nearly all fall outside any fact.
    if (this.captures.length === 0) return;
    for (const capture of this.captures) {
      if (this.excludeDepth > 0 && capture.honoursExclude) continue;
      capture.parts.push(text);
    }
  }

  private declaredScope(parent: ScopeInfo): ScopeInfo {
    const scope = Object.create(parent.scope) as Record<string, string>;
    for (let index = 0; index < this.declarations.length; index += 2) {
      scope[this.declarations[index] as string] = this.declarations[index + 1] as string;
    }
    this.declarations.length = 0;
    return scopeInfo(scope);
  }

  private capture(honoursExclude = false): Capture {
    const capture = { parts: [], honoursExclude };
    this.captures.push(capture);
    return capture;
  }

  private open(element: QualifiedName, attributes: Attributes, info: ScopeInfo): Frame {
    const { namespace, localName } = element;
    if (INLINE_XBRL.has(namespace)) {
      this.sawInlineElement = true;
      return this.inline(localName, attributes, info);
    }
    if (namespace === XBRLI || namespace === XBRLDI) return this.infrastructure(localName, attributes, info);
    if (this.kind === 'xbrl' && attributes.contextRef !== undefined && !XBRL_INFRASTRUCTURE.has(namespace)) {
      const nil = isNil(attributes, info.scope);
      return {
        info,
        kind: 'xbrlFact',
        capture: this.capture(),
        fact: { concept: element, contextRef: attributes.contextRef, unitRef: attributes.unitRef, nil, hidden: false },
      };
    }
    return info.plain;
  }

  private inline(localName: string, attributes: Attributes, info: ScopeInfo): Frame {
    const { scope } = info;
    switch (localName) {
      case 'nonFraction': {
        const concept = requiredName(attributes, scope, 'ix:nonFraction');
        const contextRef = required(attributes, 'contextRef', concept);
        const fact = { concept, contextRef, unitRef: attributes.unitRef, nil: isNil(attributes, scope), hidden: this.hiddenDepth > 0 };
        return { info, kind: 'nonFraction', capture: this.capture(), fact, attributes };
      }
      case 'nonNumeric': {
        const concept = requiredName(attributes, scope, 'ix:nonNumeric');
        const contextRef = required(attributes, 'contextRef', concept);
        const rule = attributes.format ? formatRule(attributes.format, scope, concept) : undefined;
        const capture: Capture = this.keepsText(concept) ? this.capture(true) : { parts: [], honoursExclude: true };
        const pending: PendingText = {
          concept,
          contextRef,
          nil: isNil(attributes, scope),
          hidden: this.hiddenDepth > 0,
          parts: capture.parts,
          constant: rule?.kind === 'other' ? rule.constant : undefined,
          continuedAt: attributes.continuedAt,
        };
        return { info, kind: 'nonNumeric', capture, pending };
      }
      case 'continuation':
        return { info, kind: 'continuation', capture: this.capture(true), attributes };
      case 'exclude':
        this.excludeDepth++;
        return { info, kind: 'exclude' };
      case 'hidden':
        this.hiddenDepth++;
        return { info, kind: 'hidden' };
      default:
        return info.plain;
    }
  }

  private infrastructure(localName: string, attributes: Attributes, info: ScopeInfo): Frame {
    switch (localName) {
      case 'context': {
        this.context = { id: attributes.id ?? '', dimensions: [], fields: {} };
        return { info, kind: 'context', context: this.context };
      }
      case 'identifier':
      case 'instant':
      case 'startDate':
      case 'endDate':
      case 'forever': {
        if (!this.context) return info.plain;
        if (localName === 'identifier' && attributes.scheme) this.context.fields.scheme = attributes.scheme;
        return { info, kind: 'contextField', capture: this.capture(), context: this.context, field: localName };
      }
      case 'explicitMember':
      case 'typedMember': {
        if (!this.context || !attributes.dimension) return info.plain;
        const dimension = resolve(attributes.dimension, info.scope);
        const typed = localName === 'typedMember';
        return { info, kind: 'member', capture: this.capture(), context: this.context, dimension, typed };
      }
      case 'unit': {
        this.unit = { id: attributes.id ?? '', measures: [], divide: false };
        return { info, kind: 'unit', unit: this.unit };
      }
      case 'divide':
        if (this.unit) this.unit.divide = true;
        return info.plain;
      case 'measure':
        return this.unit ? { info, kind: 'measure', capture: this.capture(), unit: this.unit } : info.plain;
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
        const { fact, capture, attributes, info } = frame;
        const number = fact.nil ? null : inlineNumber(capture.parts.join(''), attributes, info.scope, fact.concept, fact.contextRef);
        this.facts.push({ ...fact, number });
        return;
      }
      case 'nonNumeric':
        this.pendingTexts.push(frame.pending);
        return;
      case 'continuation':
        if (frame.attributes.id) {
          this.continuations.set(frame.attributes.id, { parts: frame.capture.parts, continuedAt: frame.attributes.continuedAt });
        }
        return;
      case 'xbrlFact':
        this.facts.push(xbrlFact(frame.fact, frame.capture.parts.join('').trim()));
        return;
      case 'context': {
        const { id, fields, dimensions } = frame.context;
        this.contexts.set(id, {
          id,
          entityIdentifier: fields.identifier,
          entityScheme: fields.scheme,
          start: fields.startDate,
          end: fields.endDate ?? fields.instant,
          forever: fields.forever !== undefined,
          dimensions,
        });
        this.context = undefined;
        return;
      }
      case 'contextField':
        frame.context.fields[frame.field] = frame.capture.parts.join('').trim();
        return;
      case 'member': {
        const text = frame.capture.parts.join('').trim();
        const member = frame.typed ? text : resolve(text, frame.info.scope).localName;
        frame.context.dimensions.push({ dimension: frame.dimension, member, typed: frame.typed });
        return;
      }
      case 'unit':
        this.units.set(frame.unit.id, frame.unit);
        this.unit = undefined;
        return;
      case 'measure':
        frame.unit.measures.push(resolve(frame.capture.parts.join('').trim(), frame.info.scope));
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
  const localName = colon < 0 ? written : written.slice(colon + 1);
  return { namespace: scope[prefix] ?? '', localName, written };
}

function rootKind(root: QualifiedName): 'ixbrl' | 'xbrl' {
  if (root.localName === 'html') return 'ixbrl';
  if (root.localName === 'xbrl' && root.namespace === XBRLI) return 'xbrl';
  throw new InstanceError(`the document is neither XHTML nor an XBRL instance (its root element is <${root.written}>)`);
}

function requiredName(attributes: Attributes, scope: Scope, element: string): QualifiedName {
  const name = attributes.name;
  if (!name) throw new InstanceError(`an ${element} has no name`);
  return resolve(name, scope);
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

const formatRules = new WeakMap<Scope, Map<string, TransformationLookup>>();

/** The rule a format names; looked up once per scope, as a filing repeats one or two formats thousands of times. */
function formatRule(format: string, scope: Scope, concept: QualifiedName): TransformationLookup {
  let rules = formatRules.get(scope);
  if (!rules) {
    rules = new Map();
    formatRules.set(scope, rules);
  }
  let rule = rules.get(format);
  if (!rule) {
    const name = resolve(format.trim(), scope);
    rule = TRANSFORMATION_REGISTRIES.has(name.namespace) ? transformation(name.localName) : { kind: 'unknown' };
    rules.set(format, rule);
  }
  if (rule.kind === 'unknown') throw new InstanceError(`${concept.written} uses the unknown transformation "${format}"`);
  return rule;
}

function inlineNumber(text: string, attributes: Attributes, scope: Scope, concept: QualifiedName, contextRef: string): Decimal {
  let value: Decimal | null;
  if (attributes.format) {
    const rule = formatRule(attributes.format, scope, concept);
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
