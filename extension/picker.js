// MCP Bridge picker: the user points at the chat input, the send control and one answer on
// the page, and gets a CSS selector for each. Loaded by the content script (content/main.js,
// dynamic import) only when the user starts picking, so the content script that runs on
// every chat page stays small. It draws in a closed shadow root and swallows the page's
// clicks while it runs. The core decides the rest: the steps and what a click means in each
// (`pick-start`), the selectors worth trying for the element chosen (`pick-candidates`), and
// which of them is saved, from what each found on the page (`picked`).

/** What the page shows of `el`, for the core to make selectors from. */
function describe(el) {
  const path = [];
  for (let e = el; e && e !== document.body && e.parentElement && path.length < 40; e = e.parentElement) {
    const same = [...e.parentElement.children].filter((c) => c.localName === e.localName);
    path.push({ tag: e.localName, id: e.id, nth: same.indexOf(e) + 1, of: same.length });
  }
  const attributes = {};
  for (const a of [...el.attributes].slice(0, 64)) attributes[a.name] = a.value.slice(0, 200);
  return { tag: el.localName, id: el.id, attributes, classes: [...el.classList].slice(0, 32), path };
}

/** What `selector` finds on the page, as the core's choice needs it. */
function count(selector, el) {
  let els = [];
  try { els = [...document.querySelectorAll(selector)]; } catch { /* an invalid selector finds nothing */ }
  const disjoint = els.every((a) => els.every((b) => a === b || !a.contains(b)));
  return { selector, count: els.length, includes: els.includes(el), disjoint };
}

const CSS_TEXT = `
:host{all:initial}
.mark{position:fixed;z-index:2147483646;pointer-events:none;border:2px solid #2563eb;background:rgba(37,99,235,.12);border-radius:4px}
.mark.locked{border-color:#16a34a;background:rgba(22,163,74,.15)}
.bar{position:fixed;top:8px;left:50%;transform:translateX(-50%);z-index:2147483647;display:flex;gap:6px;align-items:center;
 max-width:calc(100vw - 32px);padding:8px 10px;font:13px/1.4 system-ui,sans-serif;color:#111;background:#fff;border:1px solid #d0d7de;
 border-radius:8px;box-shadow:0 4px 16px rgba(0,0,0,.2)}
.text{flex:1}
button{font:12px system-ui,sans-serif;padding:3px 8px;border:1px solid #d0d7de;border-radius:6px;background:#f6f8fa;color:#111;cursor:pointer}
button[disabled]{opacity:.5;cursor:default}
`;

/**
 * Runs the picker. `T(key)` is the catalog; `exclude` an element of ours never to pick (the
 * float); `steps` the core's plan; `candidates(element)` asks the core for the selectors to
 * count. Resolves to `{input, send, answer}` (each `{element, found}`; a skipped part is
 * absent), or null when the user cancelled.
 */
export function pick({ T, exclude, steps, candidates }) {
  return new Promise((resolve) => {
    const host = document.createElement('mcp-bridge-picker');
    const root = host.attachShadow({ mode: 'closed' });
    const make = (tag, attrs = {}, text) => {
      const e = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text) e.textContent = text;
      return e;
    };
    const mark = make('div', { class: 'mark' });
    const text = make('span', { class: 'text' });
    const wider = make('button', { type: 'button', 'data-pick': 'wider' }, T('pickerWider'));
    const use = make('button', { type: 'button', 'data-pick': 'use' }, T('pickerUse'));
    const skip = make('button', { type: 'button', 'data-pick': 'skip' }, T('pickerSkip'));
    const cancel = make('button', { type: 'button', 'data-pick': 'cancel' }, T('pickerCancel'));
    const bar = make('div', { class: 'bar', role: 'dialog' });
    bar.append(text, wider, use, skip, cancel);
    root.append(make('style', {}, CSS_TEXT), mark, bar);
    document.documentElement.append(host);

    const found = {};
    let step = 0;
    let locked = null;
    const ours = (e) => e === host || (exclude && exclude.contains(e));
    // The element a click on `target` means in this step (the button around a click on its text).
    const widen = (target) => (steps[step].widen && target.closest(steps[step].widen)) || target;
    const show = (el) => {
      if (!el) { mark.style.display = 'none'; return; }
      const r = el.getBoundingClientRect();
      Object.assign(mark.style, { display: 'block', left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
    };
    const draw = () => {
      text.textContent = T(steps[step].label);
      mark.classList.toggle('locked', !!locked);
      use.disabled = !locked;
      wider.disabled = !locked || !locked.parentElement || locked.parentElement === document.body;
      show(locked);
    };
    const finish = (result) => {
      for (const [type, fn] of listeners) document.removeEventListener(type, fn, true);
      host.remove();
      resolve(result);
    };
    const next = () => {
      locked = null;
      step += 1;
      if (step >= steps.length) finish(found);
      else draw();
    };
    const swallow = (e) => {
      if (ours(e.target)) return;
      e.preventDefault();
      e.stopImmediatePropagation();
    };
    const listeners = [
      ['pointermove', (e) => { if (!locked && !ours(e.target)) show(widen(e.target)); }],
      ['click', (e) => {
        if (ours(e.target)) return;
        swallow(e);
        locked = widen(e.target);
        draw();
      }],
      ['pointerdown', swallow], ['pointerup', swallow], ['mousedown', swallow], ['mouseup', swallow],
      ['keydown', (e) => { if (e.key === 'Escape') { swallow(e); finish(null); } }],
    ];
    for (const [type, fn] of listeners) document.addEventListener(type, fn, true);
    wider.addEventListener('click', () => {
      if (locked?.parentElement && locked.parentElement !== document.body) locked = locked.parentElement;
      draw();
    });
    use.addEventListener('click', async () => {
      if (!locked) return;
      const el = locked;
      const element = describe(el);
      use.disabled = true;
      const selectors = await candidates(element).catch(() => null);
      if (!Array.isArray(selectors)) { draw(); return; }
      found[steps[step].part] = { element, found: selectors.map((sel) => count(sel, el)) };
      next();
    });
    skip.addEventListener('click', next);
    cancel.addEventListener('click', () => finish(null));
    draw();
  });
}
