// An MCP App view in the float: loaded by the content script (a dynamic import) only when
// the core says a call's view is to be shown, so a page without a view runs none of it.
// It frames the extension's own `view/host.html` (web-accessible, under a per-session
// address in Chromium), which frames the view itself; the view's messages never pass here.
// The frame sits beside the float's box in the float's closed shadow root: the box is
// redrawn on every state, and a frame moved or redrawn would load again.

const CSS = `
.view{position:fixed;z-index:2147483647;display:flex;flex-direction:column;box-sizing:border-box;
 font:12px/1.4 system-ui,sans-serif;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:10px;
 box-shadow:0 6px 24px rgba(0,0,0,.18);overflow:hidden}
.view[hidden]{display:none}
.view .vbar{display:flex;align-items:center;gap:6px;min-height:28px;padding:2px 4px 2px 10px;border-bottom:1px solid var(--line)}
.view .vbar span{flex:1;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-weight:600}
.view .vbar button{flex:none;width:24px;height:24px;padding:0;font:inherit;color:var(--fg);background:transparent;border:0;border-radius:4px;cursor:pointer}
.view .vbar button:hover{background:var(--hover)}
.view iframe{display:block;width:100%;border:0;height:160px;min-height:0;flex:0 1 auto;background:var(--bg)}
`;

/** The page's own theme: a dark background (or none, in a dark system) reads as dark. */
function pageTheme() {
  const rgb = (getComputedStyle(document.body || document.documentElement).backgroundColor.match(/[\d.]+/g) || []).map(Number);
  if (rgb.length >= 3 && (rgb.length < 4 || rgb[3] > 0)) {
    const [r, g, b] = rgb;
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128 ? 'dark' : 'light';
  }
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The gap between the float's box, the panel and the window's edges, in px. */
const GAP = 6;

/** The narrowest a panel is where the window allows (a float docked in a narrow margin is narrower). */
const MIN_WIDTH = 360;

/**
 * Where the panel goes beside box `r` (a rect) in a `width`×`height` window when the view
 * wants `want` px of height: `{ left, top, width, height }`. The panel is as wide as the box,
 * at least MIN_WIDTH within the window, and lines up with the box's edge nearer the window's.
 */
function spot(r, want, width, height) {
  const w = Math.min(Math.max(r.width, MIN_WIDTH), width - 2 * GAP);
  const inside = (left) => Math.min(Math.max(GAP, left), width - GAP - w);
  const x = inside(r.left + r.width / 2 > width / 2 ? r.right - w : r.left);
  const above = r.top - 2 * GAP;
  const below = height - r.bottom - 2 * GAP;
  if (want <= above) return { left: x, top: r.top - GAP - want, width: w, height: want };
  if (want <= below) return { left: x, top: r.bottom + GAP, width: w, height: want };
  const tall = Math.min(want, height - 2 * GAP);
  const right = width - r.right - 2 * GAP >= w;
  const left = r.left - 2 * GAP >= w;
  if ((right || left) && tall > Math.max(above, below)) {
    const top = Math.min(Math.max(GAP, r.bottom - tall), height - GAP - tall);
    return { left: right ? r.right + GAP : r.left - GAP - w, top, width: w, height: tall };
  }
  return above >= below
    ? { left: x, top: GAP, width: w, height: Math.max(40, above) }
    : { left: x, top: r.bottom + GAP, width: w, height: Math.max(40, below) };
}

/**
 * Shows view `view` (the core's id) of `tool` in `float` (the content script's float:
 * its shadow root and wrap), replacing a view shown before; `words`: the bar's title and the
 * close button's label, in the interface language.
 */
export function show({ view, tool }, float, words = {}) {
  const title = words.title || tool;
  const { root, wrap } = float;
  float.view?.remove();
  float.viewDone?.();
  if (!root.querySelector('style[data-view]')) {
    const style = document.createElement('style');
    style.dataset.view = '';
    style.textContent = CSS;
    root.append(style);
  }
  const panel = document.createElement('div');
  panel.className = 'view';
  panel.dataset.view = view;
  const bar = document.createElement('div');
  bar.className = 'vbar';
  const name = document.createElement('span');
  name.textContent = title;
  const close = document.createElement('button');
  close.type = 'button';
  close.textContent = '×';
  close.title = close.ariaLabel = words.close || '×';
  bar.append(name, close);
  const frame = document.createElement('iframe');
  const hash = new URLSearchParams({ view, theme: pageTheme() });
  frame.src = `${chrome.runtime.getURL('view/host.html')}#${hash}`;
  frame.title = title;
  panel.append(bar, frame);
  root.append(panel);
  float.view = panel;

  // Beside the box wherever the float goes, never over it (its buttons, a consent question's
  // too): above it or below it where the whole view fits; else beside it where that shows more
  // of the view (the float docked by a chat's input, low on the page, leaves little room
  // above or below); else in the larger room, cut to it (the view scrolls inside).
  const place = () => {
    const box = wrap.querySelector('.box');
    panel.hidden = !box;
    if (!box) return;
    const r = box.getBoundingClientRect();
    panel.style.maxHeight = '';
    const want = panel.getBoundingClientRect().height;
    const { left, top, width, height } = spot(r, want, innerWidth, innerHeight);
    const maxHeight = height < want ? `${height}px` : '';
    Object.assign(panel.style, { left: `${left}px`, top: `${top}px`, width: `${width}px`, maxHeight });
  };
  // The host page says how high the view wants to be (the number only, from its own frame).
  const onMessage = (e) => {
    if (e.source !== frame.contentWindow || typeof e.data?.mcpBridgeViewHeight !== 'number') return;
    frame.style.height = `${Math.round(e.data.mcpBridgeViewHeight)}px`;
    place();
  };
  const watch = new MutationObserver(place);
  watch.observe(wrap, { subtree: true, childList: true, attributes: true, attributeFilter: ['style', 'class'] });
  addEventListener('resize', place);
  addEventListener('message', onMessage);
  float.viewDone = () => {
    watch.disconnect();
    removeEventListener('resize', place);
    removeEventListener('message', onMessage);
    float.viewDone = null;
  };
  close.onclick = () => { panel.remove(); float.view = null; float.viewDone?.(); };
  place();
  return { ok: true };
}
