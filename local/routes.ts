/**
 * API Gateway HTTP API route selection: `{name}` matches one path segment, a final `{name+}` matches
 * the rest of the path, and the most specific route wins (literal segments over parameters over a
 * greedy parameter), so `/v1/profile/search` beats `/v1/profile/{companyNumber}`.
 */
export interface RouteDefinition {
  readonly method: string;
  /** API Gateway route syntax, e.g. /v1/profile/{companyNumber}. */
  readonly path: string;
}

type Segment =
  | { readonly kind: 'literal'; readonly value: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'greedy'; readonly name: string };

const specificity: Record<Segment['kind'], number> = { literal: 0, param: 1, greedy: 2 };

interface CompiledRoute<T> {
  readonly route: T;
  readonly method: string;
  readonly segments: readonly Segment[];
}

export interface RouteMatch<T> {
  readonly route: T;
  /** `GET /v1/profile/{companyNumber}`, as in the event's routeKey. */
  readonly routeKey: string;
  /** Parameter values from the (already decoded) path. */
  readonly pathParameters: Readonly<Record<string, string>>;
}

export function routeKeyOf(route: RouteDefinition): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

function parseSegment(text: string, path: string, isLast: boolean): Segment {
  const parameter = /^\{([A-Za-z0-9_.-]+)(\+?)\}$/.exec(text);
  if (!parameter) {
    if (text.includes('{') || text.includes('}')) throw new Error(`Malformed route path ${path}`);
    return { kind: 'literal', value: text };
  }
  const [, name = '', greedy] = parameter;
  if (!greedy) return { kind: 'param', name };
  if (!isLast) throw new Error(`A greedy parameter must end the route path: ${path}`);
  return { kind: 'greedy', name };
}

function compile<T extends RouteDefinition>(route: T): CompiledRoute<T> {
  if (!route.path.startsWith('/')) throw new Error(`Route path must start with "/": ${route.path}`);
  const parts = route.path === '/' ? [] : route.path.slice(1).split('/');
  return {
    route,
    method: route.method.toUpperCase(),
    segments: parts.map((part, index) => parseSegment(part, route.path, index === parts.length - 1)),
  };
}

function moreSpecificFirst<T>(a: CompiledRoute<T>, b: CompiledRoute<T>): number {
  const length = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    const left = a.segments[i];
    const right = b.segments[i];
    if (!left || !right) return left ? -1 : 1;
    const difference = specificity[left.kind] - specificity[right.kind];
    if (difference !== 0) return difference;
  }
  return 0;
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): Record<string, string> | undefined {
  const parameters: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    if (segment.kind === 'greedy') {
      const rest = parts.slice(index);
      if (rest.length === 0 || rest.every((part) => part === '')) return undefined;
      parameters[segment.name] = rest.join('/');
      return parameters;
    }
    const part = parts[index];
    if (part === undefined) return undefined;
    if (segment.kind === 'literal' && segment.value !== part) return undefined;
    if (segment.kind === 'param') {
      if (part === '') return undefined;
      parameters[segment.name] = part;
    }
  }
  return parts.length === segments.length ? parameters : undefined;
}

export class RouteTable<T extends RouteDefinition> {
  private readonly compiled: readonly CompiledRoute<T>[];

  constructor(routes: readonly T[]) {
    const seen = new Set<string>();
    for (const route of routes) {
      const key = routeKeyOf(route);
      if (seen.has(key)) throw new Error(`Route ${key} is declared twice`);
      seen.add(key);
    }
    this.compiled = routes.map(compile).sort(moreSpecificFirst);
  }

  /** The route for a decoded request path, or undefined (API Gateway answers 404 then, whatever the method). */
  match(method: string, decodedPath: string): RouteMatch<T> | undefined {
    const parts = decodedPath === '/' ? [] : decodedPath.slice(1).split('/');
    const wanted = method.toUpperCase();
    for (const candidate of this.compiled) {
      if (candidate.method !== wanted) continue;
      const pathParameters = matchSegments(candidate.segments, parts);
      if (pathParameters) return { route: candidate.route, routeKey: routeKeyOf(candidate.route), pathParameters };
    }
    return undefined;
  }
}
