// Code a page needs only once something is used (a dialog, the replayer, the hand log, a
// tournament's bar): fetched by a dynamic import() at that moment, so that a table page's
// first load carries none of it. Only the static imports of main.js are preloaded
// (app/api/assets.py); these modules stay under the same versioned URL.
//
// `lazy(load)` gives `get()`, the module's promise (a failed fetch is tried again next time),
// and `get.now(redraw)` for a view: the module once it is here, else null, asking for it
// and redrawing when it comes (one frame without the part, as for any data still on its way).
// `styled`: the part's rules are in more.css, which comes with it (never drawn unstyled).
export function lazy(load, { styled = false } = {}) {
  let mod = null;
  let loading = null;
  const get = () => {
    if (!loading) {
      loading = Promise.all([load(), styled ? moreStyles() : null])
        .then(([m]) => { mod = m; return m; }, (e) => { loading = null; throw e; });
    }
    return loading;
  };
  get.now = (redraw) => {
    if (!mod) get().then(() => redraw(), () => {});
    return mod;
  };
  return get;
}

// more.css, linked once (the other pages link it themselves: #more-css); resolved once it has
// loaded, or failed to (then the part is drawn all the same).
let more = null;
export function moreStyles() {
  if (!more) {
    more = document.getElementById('more-css') ? Promise.resolve() : new Promise((resolve) => {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = new URL('../more.css', import.meta.url).href;
      link.onload = link.onerror = resolve;
      document.head.append(link);
    });
  }
  return more;
}
