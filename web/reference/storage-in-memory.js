// The reference page runs sandboxed, in an opaque origin, where merely reading localStorage or
// sessionStorage throws. Scalar keeps its preferences there and stops at the first throw, so each is
// replaced, before Scalar runs, by a Storage held in memory: remembered for this visit only.
for (const name of ['localStorage', 'sessionStorage']) {
  try {
    void window[name];
    continue;
  } catch {}
  const items = new Map();
  const storage = {
    get length() {
      return items.size;
    },
    key: (index) => [...items.keys()][index] ?? null,
    getItem: (key) => items.get(String(key)) ?? null,
    setItem: (key, value) => {
      items.set(String(key), String(value));
    },
    removeItem: (key) => {
      items.delete(String(key));
    },
    clear: () => {
      items.clear();
    },
  };
  Object.defineProperty(window, name, { value: storage, configurable: true, enumerable: true });
}
