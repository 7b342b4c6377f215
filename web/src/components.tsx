import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { copyText } from './format';

/** Says what happened in words a screen reader announces as it changes. */
export function Status({ message, tone = 'info' }: { message: string | undefined; tone?: 'info' | 'error' }) {
  return (
    <p class={`status ${tone}`} role={tone === 'error' ? 'alert' : 'status'} aria-live="polite">
      {message ?? ''}
    </p>
  );
}

export const errorText = (error: unknown) =>
  error instanceof ApiError ? error.message : 'The workspace could not be reached; check your connection and try again.';

/** The page heading takes focus on arrival, so keyboard and screen-reader users start at the top of the new page. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState<string>();
  return (
    <>
      <button
        type="button"
        class="secondary"
        onClick={async () => setDone((await copyText(text)) ? 'Copied.' : 'Copy failed: select the text instead.')}
      >
        {label}
      </button>
      <span class="copied" role="status" aria-live="polite">
        {done ?? ''}
      </span>
    </>
  );
}

export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): { value?: T; error?: string; reload: () => void } {
  const [state, setState] = useState<{ value?: T; error?: string }>({});
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && setState({ value }),
      (error) => live && setState({ error: errorText(error) }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  return { ...state, reload: () => setRound((n) => n + 1) };
}
