// What the options page's sections share: the message names, and the way a section writes
// the core's answer (its sentence, the field it names) into the page.
import { el, say, t, translate } from '../pages.js';

// Message names, from ../contract.js (loaded by options.html before the page's modules).
export const { page: PAGE, response: RESPONSE } = globalThis.MCP_BRIDGE;
export const $ = (id) => document.getElementById(id);

// The core has started (pages.js waits for it: the labels are its words), so the labels are
// translated at once and every section's module (each imports this one) wires its controls up.
translate();
$('extension-version').textContent = chrome.runtime.getManifest().version;

/** `text` between backticks: a name in a sentence that `say` writes, shown as code. */
export const tick = (text) => `\`${text}\``;

/**
 * Text from the bridge or an MCP server (a description, its own message): data in whatever
 * language it came, isolated from the page's sentences around it.
 */
export const quoted = (tag, text, attrs) => {
  const node = el(tag, null, attrs);
  node.append(el('bdi', text));
  return node;
};

/**
 * A server's or tool's icon, drawn before its name: the core passes on only a `data:image/`
 * URL it checked, so nothing is fetched. Decorative (the name beside it says what it is);
 * nothing is drawn without one.
 */
export function icon(url) {
  if (!url) return [];
  return [el('img', null, { class: 'icon', src: url, alt: '', width: '16', height: '16' }), ' '];
}

/** A name (of a server, a site, a host) marked up as code, in bold when `strong`. */
export function named(text, strong = true) {
  const code = el('code', text);
  if (!strong) return code;
  const b = el('strong');
  b.append(code);
  return b;
}

/**
 * Writes an answer into `out` and marks the field the core named (its sentence names it). Returns the data of a
 * success, or null.
 */
export function report(section, out, answer, okText) {
  for (const bad of section.querySelectorAll('[aria-invalid="true"]')) bad.removeAttribute('aria-invalid');
  if (answer?.type === RESPONSE.DATA) {
    out.dataset.state = 'ok';
    say(out, okText ?? t('saved'));
    return answer.data;
  }
  out.dataset.state = 'down';
  // The core's sentence names the field; the field itself is marked for the eye and the
  // screen reader.
  const field = answer?.field;
  if (field) {
    const root = String(field).split(/[.[]/)[0];
    section.querySelector(`[data-field="${CSS.escape(root)}"]`)?.setAttribute('aria-invalid', 'true');
    out.dataset.field = field;
  } else {
    delete out.dataset.field;
  }
  say(out, answer?.message ?? t('noAnswer'));
  return null;
}

/**
 * One request the core asks the page to make again: `again(ms, fn)` runs `fn` once after `ms`
 * while the page is visible (as soon as it shows again otherwise), replacing what was
 * scheduled before; without `ms`, nothing is.
 */
export function askingAgain() {
  let timer = 0;
  return (ms, fn) => {
    clearTimeout(timer);
    if (!ms) return;
    timer = setTimeout(function due() {
      if (document.visibilityState === 'visible') fn();
      else document.addEventListener('visibilitychange', due, { once: true });
    }, ms);
  };
}

/** Saves an export the core answered (`{json, filename}`) as a download. */
export function saveJson({ json, filename }) {
  const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
  const a = el('a', null, { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
