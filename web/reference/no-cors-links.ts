import type { Plugin } from 'vite';

/**
 * Takes Vite's `crossorigin` attribute off the page's links. The reference page runs sandboxed, in
 * an opaque origin, so a link fetched in CORS mode would be a cross-origin request for a file of the
 * site, which answers no CORS; fetched plainly, as its scripts are, a stylesheet needs none. Nothing
 * is lost: the page reads no stylesheet's rules from script.
 */
export function noCorsLinks(page: string): Plugin {
  return {
    name: 'bureau:no-cors-links',
    transformIndexHtml: {
      // After Vite has added the built stylesheet's <link>.
      order: 'post',
      handler(html, context) {
        if (context.filename !== page) return;
        return html.replace(/(<link\b[^>]*?)\s+crossorigin(?:="[^"]*")?/g, '$1');
      },
    },
  };
}
