// The float (closed shadow root: page CSS cannot reach in, ours cannot leak out): drawn
// from the core's state (place.js puts it clear of the chat input), its buttons sending the core's
// actions.
'use strict';

// Colours meet WCAG AA (4.5:1 or more) for all text in both themes; no text is under
// 12 px; every target is at least 24×24 px. The tone (the core's) colours the dot and the ring.
const FLOAT_CSS = `
:host{all:initial;--fg:#111;--bg:#fff;--line:#d0d7de;--soft:#f6f8fa;--hover:#eaeef2;--bad:#b91c1c;--link:#1d4ed8}
@media (prefers-color-scheme:dark){:host{--fg:#e6edf3;--bg:#161b22;--line:#3d444d;--soft:#21262d;--hover:#30363d;--bad:#fca5a5;--link:#93c5fd}}
[data-tone=neutral]{--c:#2563eb}[data-tone=attention],[data-tone=busy]{--c:#d97706}[data-tone=good]{--c:#16a34a}[data-tone=bad]{--c:#dc2626}[data-tone=off]{--c:#6b7280}
.box{position:fixed;right:16px;bottom:16px;z-index:2147483647;width:min(360px,calc(100vw - 32px));display:flex;flex-direction:column;
 overflow:hidden;font:13px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:10px;
 box-shadow:0 6px 24px rgba(0,0,0,.18)}
.bar{display:flex;align-items:center;gap:6px;min-height:36px;flex:none;box-sizing:border-box;padding:4px 6px 4px 10px;cursor:move;border-bottom:1px solid var(--line);user-select:none}
.box.docked{flex-direction:column-reverse}
.box.docked .bar{border-bottom:0;border-top:1px solid var(--line)}
.dot{flex:none;width:10px;height:10px;border-radius:50%;background:var(--c)}
.title{flex:1;min-width:0;font-weight:600;overflow-wrap:break-word}
.bar .icon{flex:none;width:16px;height:16px}
.bar button{flex:none;width:28px;height:28px;padding:0}
.narrow .bar{flex-wrap:wrap}.narrow .title{flex:1 1 calc(100% - 24px)}.narrow .bar button:first-of-type{margin-left:auto}
.bar button.prompts{width:auto;padding:0 8px}
code{font:12px ui-monospace,monospace;background:var(--soft);border-radius:4px;padding:0 3px;display:inline-block;max-width:100%;box-sizing:border-box;overflow-wrap:anywhere}
.body{padding:8px 10px;white-space:pre-wrap;word-break:break-word;overflow:auto;min-height:0}
.body:empty{display:none}
.report{margin:6px 0 0;padding:6px 8px;background:var(--soft);border-radius:6px;white-space:normal;max-height:240px;overflow:auto}
.report p{margin:0 0 4px}.report .h{font-weight:600}.body .report pre{max-height:none;background:var(--bg)}
.body pre{margin:6px 0 0;padding:6px;background:var(--soft);border-radius:6px;font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap;max-height:180px;overflow:auto}
.row,.tools{display:flex;flex-wrap:wrap;gap:6px;padding:6px 10px;flex:none}
.tools{border-top:1px solid var(--line)}
button{font:12px/1.2 system-ui,sans-serif;padding:4px 10px;min-height:28px;min-width:28px;border:1px solid var(--line);border-radius:6px;background:var(--soft);color:var(--fg);cursor:pointer}
button:hover{background:var(--hover)}
button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff;font-weight:600}
button.primary:hover{background:#1e40af}
button[data-id=deny]{color:var(--bad);border-color:var(--bad);background:var(--bg)}
button:focus-visible{outline:2px solid #2563eb;outline-offset:1px}
.cmd{display:flex;align-items:center;gap:6px;margin-top:6px}
.cmd code{flex:1;padding:4px 6px}
.why{margin-top:4px}
.everywhere{display:flex;align-items:center;gap:6px;margin-top:6px}
.args{margin:6px 0 0;display:grid;grid-template-columns:auto 1fr;gap:2px 8px;max-height:200px;overflow:auto}
.args dt{font-weight:600}.args dd{margin:0}.args dd code{background:none;padding:0}
.args summary{cursor:pointer;min-height:24px}
textarea{width:100%;box-sizing:border-box;height:90px;font:12px ui-monospace,monospace;color:var(--fg);background:var(--bg)}
.manual{display:flex;gap:4px;padding:4px 10px;flex:none}
.media{display:flex;flex-wrap:wrap;gap:6px;margin-top:6px}
.item{display:flex;flex-direction:column;align-items:center;gap:2px}
.item img{max-width:96px;max-height:96px;border:1px solid var(--line);border-radius:4px;background:var(--soft)}
.item audio,.item span{max-width:200px}
.item a{color:var(--link)}
.health{margin-top:6px;font-size:12px}
.health summary{cursor:pointer;min-height:24px}
.health ul{margin:2px 0 0;padding-left:18px}
.missing{margin-top:4px;font-weight:600;color:var(--bad)}
.progress progress{width:100%}
.question{margin-top:6px;padding:6px;border:1px solid var(--line);border-radius:6px;white-space:normal}
.question .row{padding:4px 0 0}
.field{display:flex;flex-direction:column;gap:2px;margin-top:4px}
.field input[type=text],.field input[type=number],.field select{font:12px system-ui,sans-serif;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:2px 4px;min-height:24px}
.url{font:12px ui-monospace,monospace;word-break:break-all;margin-top:4px}
.refused{color:var(--bad)}
.refused:empty{display:none}
.menu{padding:4px 10px 8px;flex:0 1 auto;min-height:0;max-height:50vh;overflow:auto}
.menu select,.menu input{width:100%;box-sizing:border-box;font:12px system-ui,sans-serif;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;min-height:24px}
.menu .row{padding:4px 0 0}
.desc{margin-top:4px;opacity:.85}
.rlink,.notice{display:flex;align-items:center;gap:6px;margin-top:4px;white-space:normal}
.rlink span{flex:1;overflow:hidden;text-overflow:ellipsis}
.notice{font-weight:600}
.ring{position:fixed;right:16px;bottom:16px;z-index:2147483647;width:32px;height:32px;min-height:0;padding:0;border-radius:50%;
 border:6px solid var(--c);background:var(--bg);cursor:pointer;box-sizing:border-box}
`;

function createFloat() {
  const host = document.createElement('mcp-bridge-float');
  const root = host.attachShadow({ mode: 'closed' });
  root.append(el('style', {}, FLOAT_CSS));
  const wrap = el('div');
  root.append(wrap);
  document.documentElement.append(host);
  return { host, root, wrap, minimized: false, pos: null, manual: false, menu: false, report: false, elapsedTimer: 0, urls: [], attached: null, prompts: null };
}

function drag(handle, box) {
  handle.addEventListener('pointerdown', (e) => {
    if (e.target.closest('button')) return;
    const r = box.getBoundingClientRect();
    const dx = e.clientX - r.left, dy = e.clientY - r.top;
    const move = (m) => {
      float.pos = { left: Math.max(0, m.clientX - dx), top: Math.max(0, m.clientY - dy) };
      placeFloat();
    };
    const up = () => {
      removeEventListener('pointermove', move);
      removeEventListener('pointerup', up);
      if (float.pos) chrome.storage.local.set({ [`floatPos:${site.id}`]: float.pos });
    };
    addEventListener('pointermove', move);
    addEventListener('pointerup', up);
  });
}

// The report as a person reads it: its heading and labels in bold, its code and the
// result's fenced text as code, the markers meant for the AI (`<tool_result>`, the fence
// and the sentence naming it) left out. *Copy* still copies the AI's text as it is.
function readableReport(text) {
  const box = el('div', { class: 'report' });
  let code = null; // { close: how its closing line starts, lines }
  for (const line of String(text).split('\n')) {
    if (code) {
      if (line.trim().startsWith(code.close)) { box.append(el('pre', {}, code.lines.join('\n'))); code = null; } else code.lines.push(line);
      continue;
    }
    if (/^\s*<\/?tool_result>\s*$/.test(line) || !line.trim()) continue;
    // The result's fence (the core's `⟦DATA-…⟧` lines, for the AI, named in the sentence
    // before it) or a code fence: what is between them is shown as code.
    const fence = /^\s*(```|⟦DATA-[0-9a-f]+⟧\s*$)/.exec(line);
    if (fence) { code = { close: fence[1].trim(), lines: [] }; continue; }
    if (line.includes('⟦DATA-')) continue;
    const heading = /^#+\s+(.*)$/.exec(line);
    const labelled = /^\*\*(.+?)\*\*:?\s*(.*)$/.exec(line);
    if (heading) box.append(el('p', { class: 'h' }, ...rich(heading[1])));
    else if (labelled) box.append(el('p', {}, el('strong', {}, labelled[1]), ' ', ...rich(labelled[2])));
    else box.append(el('p', {}, ...rich(line.replace(/^-\s+/, '• '))));
  }
  if (code) box.append(el('pre', {}, code.lines.join('\n')));
  return box;
}

// A running call's progress, as the core worded it.
function progressSection(p) {
  const box = el('div', { class: 'progress' });
  if (p.percent != null) box.append(el('progress', { max: '100', value: String(p.percent) }));
  box.append(el('div', {}, p.text || ''));
  return box;
}

// The core's actions (`float::ActionId`), as the message each sends.
// A kept choice holds on this site only, unless the user ticked "on every site".
const everywhere = () => Boolean(float?.root.querySelector('[data-everywhere]')?.checked);
const confirmed = (run, always) => ({ action: ACTION.CONFIRM, run, always, everywhere: always && everywhere() });
const ACTIONS = {
  'allow-once': () => confirmed(true, false), 'always-allow': () => confirmed(true, true),
  'trust-server': () => ({ ...confirmed(true, false), trust: true }),
  deny: () => confirmed(false, true), skip: () => confirmed(false, false),
  cancel: () => ({ action: ACTION.CANCEL }), 'open-settings': () => ({ action: ACTION.OPEN_DETAILS }),
  'tell-ai': () => ({ action: ACTION.HELD, tellAi: true }), drop: () => ({ action: ACTION.HELD, tellAi: false }),
  'insert-instructions': () => ({ action: ACTION.INSERT_INSTRUCTIONS }),
  // About the float's own tool (and its server, when the call named one).
  'reset-tool': () => ({ action: ACTION.RESET_TOOL, ...ofTool() }),
  'ask-next-time': () => ({ action: ACTION.ASK_NEXT_TIME, ...ofTool() }),
};
const ofTool = () => ({ tool: floatState.tool ?? '', ...(floatState.server ? { server: floatState.server } : {}) });
function act(id) {
  if (id === 'copy-report') navigator.clipboard.writeText(floatState.report ?? '').catch(() => {});
  else if (ACTIONS[id]) send({ type: TAB.USER_ACTION, action: ACTIONS[id]() });
}
// A copy button that says it copied.
const copyButton = (text, key) => {
  const b = el('button', { type: 'button', 'data-copy': key, onclick: () => navigator.clipboard.writeText(text)
    .then(() => { b.textContent = T('floatCopied'); }, () => {}) }, T(key));
  return b;
};

// The secondary tools, behind one button in the title bar.
function toolsRow() {
  const row = el('div', { class: 'tools' });
  const tool = (key, action) => row.append(el('button', { type: 'button', 'data-action': key, onclick: action }, T(key)));
  tool('floatRedetect', () => {
    const msg = newestMessage();
    if (msg) send({ type: TAB.USER_ACTION, action: { action: ACTION.REDETECT, index: msg.index, text: msg.text } });
  });
  tool('floatManual', () => { float.manual = !float.manual; render(floatState); });
  tool('floatPick', startPicker);
  tool('floatSettings', () => act('open-settings'));
  return row;
}

// The icon of the tool the float names: a data:image/ URL the core checked, decorative (the
// title names the tool). A page whose CSP refuses data: images shows none, as without one.
function toolIcon(url) {
  if (!url) return null;
  const img = el('img', { class: 'icon', src: url, alt: '', width: '16', height: '16' });
  img.addEventListener('error', () => img.remove());
  return img;
}

// A consent prompt: why it asks, and the call's arguments (long values folded).
function consentSection(c) {
  const box = el('div', { class: 'consent' }, el('div', { class: 'why', id: 'mcpb-why' }, ...rich(c.why)));
  const args = el('dl', { class: 'args' });
  for (const a of c.args || []) {
    const value = a.short ? el('details', {}, el('summary', {}, el('code', {}, a.short)), el('code', {}, a.value)) : el('code', {}, a.value);
    args.append(el('dt', {}, el('code', {}, a.name)), el('dd', {}, value));
  }
  box.append(c.noArgs ? el('div', { class: 'why' }, c.noArgs) : args);
  if (c.everywhere) {
    box.append(el('label', { class: 'everywhere' }, el('input', { type: 'checkbox', 'data-everywhere': '' }), c.everywhere));
  }
  return box;
}

const PARTS = [['input', 'partInput'], ['send', 'partSend'], ['answers', 'partAnswers'], ['generating', 'partGenerating']];
const FOUND = { config: 'foundConfig', structure: 'foundStructure', learned: 'foundLearned', missing: 'foundMissing', pending: 'foundPending' };
const MISSING = { input: 'missingInput', send: 'missingSend', answers: 'missingAnswers' };

/**
 * The float's part of the health record, once a part is not the config's: a part the core
 * counts as missing is said plainly; how each part was found waits behind a details view.
 */
function healthSection() {
  const how = parts.how;
  if (!site || PARTS.every(([part]) => how[part] === 'config' || how[part] === 'pending')) return null;
  const box = el('div', { class: 'health' });
  for (const [part, key] of Object.entries(MISSING)) {
    if (how[part] === 'missing') box.append(el('div', { class: 'missing', 'data-part': part }, T(key)));
  }
  box.append(el('details', {}, el('summary', {}, T('healthDetails')),
    el('ul', {}, ...PARTS.map(([part, key]) => el('li', {}, T('partFound', [T(key), T(FOUND[how[part]])]))))));
  return box;
}

function mediaSection(media) {
  const box = el('div', { class: 'media' });
  media.forEach((m, i) => {
    const file = mediaFile(m, i);
    const url = URL.createObjectURL(file);
    float.urls.push(url);
    const view = m.mimeType.startsWith('image/')
      ? el('img', { src: url, alt: T('floatImage'), title: file.name })
      : el('audio', { src: url, controls: '' });
    // Chromium's player obeys the page's CSP (media-src): what cannot load says what it is.
    view.addEventListener('error', () => view.replaceWith(el('span', {},
      T('floatCannotOpen', [file.type, String(Math.ceil(file.size / 1024))]))));
    box.append(el('div', { class: 'item' }, view, el('a', { href: url, download: file.name }, T('floatSave'))));
  });
  return box;
}

function render(state) {
  const before = floatState;
  if (state !== floatState && float) float.attached = null;
  floatState = state;
  if (!float) float = createFloat();
  const { wrap, root } = float;
  float.urls.forEach((u) => URL.revokeObjectURL(u));
  float.urls = [];
  clearInterval(float.elapsedTimer);
  if (state.status !== before?.status) {
    // A state that needs the user (the core's `opens`) opens the float; they can minimise it again.
    if (state.opens) float.minimized = false;
    float.report = false;
    float.opened = false;
  }
  const missing = state.status !== 'disabled' && Object.values(parts.how).includes('missing');
  if (missing && !float.toldMissing) float.minimized = false;
  float.toldMissing = missing;
  // Focus goes into a consent prompt and back where it was once it is answered.
  const focused = root.activeElement?.dataset?.id;
  const asking = !!state.consent && !float.minimized;
  if (asking && !before?.consent) float.returnTo = root.activeElement ? null : document.activeElement;
  // After Esc the question stays, but a redraw no longer takes the focus from the chat.
  if (!state.consent) float.escaped = false;
  wrap.replaceChildren();
  // Minimised by the user, or (placeFloat's `auto`) for want of room while nothing needs them.
  if (float.minimized || (float.auto && !state.opens && !float.opened)) {
    const label = `${plain(state.title)} — ${T('floatRestore')}`;
    const ring = el('button', { class: 'ring', type: 'button', 'data-tone': state.tone, title: label, 'aria-label': label, onclick: () => {
      float.minimized = false; float.opened = true; render(floatState); root.querySelector('.bar button')?.focus();
    } });
    wrap.append(ring);
    placeFloat();
    return;
  }
  // A prompt is an alert dialog named by its question; any other title is a live status.
  const box = el('div', { class: 'box', 'data-status': state.status, 'data-tone': state.tone, lang: state.lang === 'zh' ? 'zh-CN' : 'en',
    ...(state.consent ? { role: 'alertdialog', 'aria-live': 'assertive', 'aria-labelledby': 'mcpb-title', 'aria-describedby': 'mcpb-why' } : {}) });
  const title = el('span', { class: 'title', id: 'mcpb-title', title: plain(state.title), ...(state.consent ? {} : { role: 'status', 'aria-live': 'polite' }) },
    ...rich(state.title));
  const bar = el('div', { class: 'bar' }, el('span', { class: 'dot' }), toolIcon(state.icon), title);
  const barButton = (cls, key, text, onclick, more = {}) => bar.append(el('button', { type: 'button', class: cls, title: T(key), 'aria-label': T(key), onclick, ...more }, text));
  if (!state.consent && state.status !== 'disabled') {
    barButton('more', 'floatMore', '⋯', () => { float.menu = !float.menu; render(floatState); }, { 'aria-expanded': String(float.menu) });
    // The Prompts menu sits in the title bar, so the action row keeps its size in every state.
    barButton('prompts', 'floatPrompts', T('floatPrompts'), openMenu, { 'data-action': 'floatPrompts', 'aria-expanded': String(!!float.prompts) });
  }
  barButton('min', 'floatMinimize', '–', () => { float.minimized = true; float.opened = false; render(floatState); root.querySelector('.ring')?.focus(); });
  drag(bar, box);
  const body = el('div', { class: 'body' });
  if (state.consent) {
    // Only the prompt and its choices while asking. Esc keeps the question (the call waits
    // for an answer) and gives the focus back to the chat, as leaving a dialog does.
    box.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      const back = float.returnTo?.isConnected ? float.returnTo : parts.input;
      float.returnTo = null;
      float.escaped = true;
      back?.focus();
    });
    body.append(consentSection(state.consent));
  } else {
    if (state.detail) body.append(el('div', { class: 'detail' }, ...rich(state.detail)));
    if (state.command) body.append(el('div', { class: 'cmd command' }, el('code', {}, state.command), copyButton(state.command, 'floatCopyCommand')));
    if (state.maskedNote) body.append(el('div', { class: 'masked' }, state.maskedNote));
    if (state.status === 'executing' && state.startedAtMs) {
      const clock = el('span', { class: 'clock' });
      const tick = () => { clock.textContent = T('floatElapsed', [String(Math.round((Date.now() - state.startedAtMs) / 1000))]); };
      tick();
      float.elapsedTimer = setInterval(tick, 1000);
      body.append(clock);
    }
    if (state.progress) body.append(progressSection(state.progress));
    if (state.question) body.append(questionSection(state.question));
    if (state.links?.length) body.append(linksSection(state.links));
    if (state.toolsChanged) {
      body.append(el('div', { class: 'notice' }, state.toolsChanged, el('button', { type: 'button', 'data-action': 'floatUpdateInstructions',
        onclick: () => send({ type: TAB.USER_ACTION, action: { action: ACTION.INSERT_INSTRUCTIONS } }) }, T('floatUpdateInstructions'))));
    }
    const media = state.media || [];
    if (media.length) body.append(mediaSection(media));
    if (float.attached !== null) body.append(el('div', {}, T(float.attached ? 'floatAttached' : 'floatNotAttached')));
    if (state.report) {
      // The report is the AI's text, in the report language: shown only when asked for.
      const toggle = el('button', { type: 'button', 'data-tool': 'report', 'aria-expanded': String(float.report),
        onclick: () => { float.report = !float.report; render(floatState); } }, T(float.report ? 'floatHideReport' : 'floatShowReport'));
      const line = el('div', { class: 'cmd' }, toggle);
      if (!state.actions?.some((a) => a.id === 'copy-report')) line.append(copyButton(state.report, 'floatCopy'));
      body.append(line);
      if (float.report) body.append(readableReport(state.report));
    }
    const healthBox = healthSection();
    if (healthBox) body.append(healthBox);
  }
  const row = el('div', { class: 'row' });
  for (const a of state.actions || []) {
    const main = a.primary && !(float.prompts?.pick != null && !state.consent);
    row.append(el('button', { type: 'button', 'data-id': a.id, class: main ? 'primary' : '', onclick: () => act(a.id) }, a.label));
  }
  const images = (state.media || []).filter((m) => m.mimeType.startsWith('image/'));
  if (images.length && site?.imagePaste) {
    // One click puts every image of the result into the chat input, as a paste would.
    row.append(el('button', { type: 'button', 'data-action': 'floatAttach', onclick: async () => {
      float.attached = await attachFiles(images.map(mediaFile));
      render(floatState);
    } }, T('floatAttach')));
  }
  // The buttons sit next to the title bar, so they keep their place as the text grows; a
  // prompt reads top-down instead: question, arguments, choices.
  if (!row.childElementCount) box.append(bar, body);
  else if (state.consent) box.append(bar, body, row);
  else box.append(bar, row, body);
  if (float.menu && !state.consent && state.status !== 'disabled') box.append(toolsRow());
  if (float.prompts && !state.consent) box.append(menuSection(float.prompts));
  if (float.manual && !state.consent) {
    const area = el('textarea', { placeholder: '<tool_code>{"tool_name": …}</tool_code>', 'aria-label': T('floatManual') });
    box.append(el('div', { class: 'manual' }, area, el('button', { type: 'button', onclick: () => {
      send({ type: TAB.USER_ACTION, action: { action: ACTION.MANUAL_INPUT, text: area.value } });
      float.manual = false;
    } }, T('floatRunManual'))));
  }
  wrap.append(box);
  placeFloat();
  if (asking && !float.escaped) (root.querySelector(`[data-id="${focused}"]`) || row.querySelector('.primary'))?.focus();
  else if (before?.consent && float.returnTo) {
    if (float.returnTo.isConnected) float.returnTo.focus();
    float.returnTo = null;
  }
}
