import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routes (#/webhooks/wh_…): the server serves one page, and a one-time link's token stays in
 * the fragment, which browsers never send to a server or put in a Referer.
 */
export function useRoute(): string[] {
  const read = () =>
    (window.location.hash.replace(/^#\/?/, '') || 'overview')
      .split('/')
      .filter((part) => part !== '')
      .map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => setRoute(read());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

export function navigate(...parts: string[]): void {
  window.location.hash = href(...parts);
}
