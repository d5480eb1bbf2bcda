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

  // Beside the box wherever the float goes: above it when there is room, else below.
  const place = () => {
    const box = wrap.querySelector('.box');
    panel.hidden = !box;
    if (!box) return;
    const r = box.getBoundingClientRect();
    panel.style.maxHeight = '';
    const height = panel.getBoundingClientRect().height;
    // Never over the box (its buttons, a consent question's too): below it, the panel is cut
    // to the room left rather than moved up onto it.
    const above = r.top - 6 - height >= 0;
    const top = above ? r.top - 6 - height : r.bottom + 6;
    const maxHeight = above ? '' : `${Math.max(40, innerHeight - top - 6)}px`;
    Object.assign(panel.style, { left: `${r.left}px`, top: `${top}px`, width: `${r.width}px`, maxHeight });
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
