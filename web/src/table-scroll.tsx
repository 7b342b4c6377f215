import type { ComponentChildren } from 'preact';

/** A wide table scrolls inside its own named region, so the page never scrolls sideways at 360 px. */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: the scrolling box is a named region, as the pattern for wide tables asks
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled without a mouse
    <div class="table-scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
