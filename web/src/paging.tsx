import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from './components';

/** One page as the API answers it: a bounded slice and the opaque cursor of the page after it. */
export interface PageOf<T> {
  readonly items: readonly T[] | T[];
  readonly nextCursor?: string | null;
}

export interface PagedList<T> {
  readonly items: T[];
  readonly loading: boolean;
  readonly error: string | undefined;
  /** 1 for the first page. */
  readonly page: number;
  readonly hasPrevious: boolean;
  readonly hasNext: boolean;
  readonly previous: () => void;
  readonly next: () => void;
  /** Reads the page on screen again (stable between renders, so effects may depend on it). */
  readonly reload: () => void;
}

/**
 * Pages both ways over a cursor-paged API. The API only knows "the page after this cursor", so the
 * cursors that led to each page seen are kept here: Previous pops one. A new query (compared by its
 * JSON) starts again at the first page, because a cursor is bound to the query it came from.
 */
export function usePagedList<T, Q>(load: (query: Q, cursor?: string) => Promise<PageOf<T>>, query: Q): PagedList<T> {
  const key = JSON.stringify(query);
  // The cursor that opened each page seen so far; the first page has none.
  const [trail, setTrail] = useState<{ key: string; cursors: (string | undefined)[] }>({ key, cursors: [undefined] });
  const [round, setRound] = useState(0);
  // `shows`: which page the items are of. A reload of that page (the first page refreshes itself) keeps
  // it, so the page on screen and its next cursor stay usable while the reload runs.
  const [state, setState] = useState<{ items: T[]; nextCursor?: string; loading: boolean; error?: string; shows?: string }>({
    items: [],
    loading: true,
  });
  // The latest load and query, so a page that passes a new function each render does not reload forever.
  const latest = useRef({ load, query });
  latest.current = { load, query };

  const cursors = trail.key === key ? trail.cursors : [undefined];
  const cursor = cursors[cursors.length - 1];
  const shown = `${key}|${cursors.length}|${cursor ?? ''}`;

  useEffect(() => {
    let live = true;
    setState((before) => ({ ...before, loading: true }));
    latest.current.load(latest.current.query, cursor).then(
      (page) => {
        if (live) setState({ items: [...page.items], nextCursor: page.nextCursor ?? undefined, loading: false, shows: shown });
      },
      (error) => {
        if (live) setState({ items: [], loading: false, error: errorText(error), shows: shown });
      },
    );
    return () => {
      live = false;
    };
  }, [key, cursor, cursors.length, round]);

  const nextCursor = state.nextCursor;
  // While another page loads its cursor is not known yet: a press then would repeat the page on screen.
  // A reload of the page on screen is no such wait: a press during it is acted on, never dropped.
  const settled = state.shows === shown;
  const next = useCallback(() => {
    if (!settled || nextCursor === undefined) return;
    setTrail((before) => ({ key, cursors: [...(before.key === key ? before.cursors : [undefined]), nextCursor] }));
  }, [key, nextCursor, settled]);
  const previous = useCallback(() => {
    if (!settled) return;
    setTrail((before) => (before.key === key && before.cursors.length > 1 ? { key, cursors: before.cursors.slice(0, -1) } : before));
  }, [key, settled]);
  const reload = useCallback(() => setRound((n) => n + 1), []);

  return {
    items: state.items,
    loading: state.loading,
    error: state.error,
    page: cursors.length,
    hasPrevious: cursors.length > 1,
    hasNext: nextCursor !== undefined,
    previous,
    next,
    reload,
  };
}

/**
 * Previous / Next with the page number read out as it changes. The buttons stay enabled while a page
 * loads (a disabled button drops keyboard focus); when one becomes disabled under the keyboard
 * (Previous on reaching the first page), focus moves to the other one instead of the page top.
 */
export function Pager<T>({ list, label }: { list: PagedList<T>; label: string }) {
  const previousButton = useRef<HTMLButtonElement>(null);
  const nextButton = useRef<HTMLButtonElement>(null);
  const lastPressed = useRef<'previous' | 'next'>();
  useEffect(() => {
    const pressed = lastPressed.current === 'previous' ? previousButton.current : nextButton.current;
    const other = lastPressed.current === 'previous' ? nextButton.current : previousButton.current;
    if (lastPressed.current && pressed?.disabled && document.activeElement !== other && !list.loading) {
      if (document.activeElement === document.body || document.activeElement === pressed) other?.focus();
    }
  });
  if (!list.hasPrevious && !list.hasNext && list.page === 1) {
    return (
      <p class="pager-status" role="status" aria-live="polite">
        {list.loading ? '' : 'Page 1 of 1'}
      </p>
    );
  }
  return (
    <nav class="pager" aria-label={label}>
      <button
        ref={previousButton}
        type="button"
        class="secondary"
        disabled={!list.hasPrevious}
        onClick={() => {
          lastPressed.current = 'previous';
          list.previous();
        }}
      >
        ← Previous
      </button>
      <span class="pager-status" role="status" aria-live="polite">
        Page {list.page}
        {list.loading ? ' (loading)' : ''}
      </span>
      <button
        ref={nextButton}
        type="button"
        class="secondary"
        disabled={!list.hasNext}
        onClick={() => {
          lastPressed.current = 'next';
          list.next();
        }}
      >
        Next →
      </button>
    </nav>
  );
}
