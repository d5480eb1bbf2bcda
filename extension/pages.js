// What the extension's own pages share: starting the core (the same build the worker runs)
// and asking it, its words for the page's labels, creating elements, and writing the core's
// sentences with their code marked up. The core writes names, commands and code between
// backticks; here they become <code>, and a command that starts the bridge gets a copy
// button. Text is only ever set as text, never parsed as HTML.
import init, * as core from './core/mcp_bridge_core.js';

const { response: RESPONSE } = globalThis.MCP_BRIDGE;

/** The core, started once; the page's words come from it, so every importer waits for it. */
export const ready = init({ module_or_path: new URL('./core/mcp_bridge_core_bg.wasm', import.meta.url) });
await ready;
const { locale, labels } = JSON.parse(core.pageLabels());

/** The language tag the core speaks, which dates follow too. */
export const uiLocale = locale;

/** The label `key` with its numbered values `{1}`… filled (the key itself when it is missing). */
export const t = (key, subs = []) => [subs].flat()
  .reduce((text, value, i) => text.replaceAll(`{${i + 1}}`, value), labels[key] ?? key);

/** Fills `[data-i18n]`, `[data-i18n-aria-label]` and `[data-i18n-placeholder]` with the labels. */
export function translate(root = document) {
  for (const node of root.querySelectorAll('[data-i18n]')) {
    const text = labels[node.dataset.i18n];
    // Options of a menu hold text only; elsewhere code between backticks is marked up.
    if (text) (node.tagName === 'OPTION' ? (node.textContent = text) : say(node, text));
  }
  for (const node of root.querySelectorAll('[data-i18n-aria-label]')) {
    const text = labels[node.dataset.i18nAriaLabel];
    if (text) node.setAttribute('aria-label', text);
  }
  for (const node of root.querySelectorAll('[data-i18n-placeholder]')) {
    const text = labels[node.dataset.i18nPlaceholder];
    if (text) node.placeholder = text;
  }
}

/** Creates an element with text content and attributes. */
export function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** `ask` hands the core one page request (a failure becomes an error answer). */
export { core };

export async function ask(request) {
  try {
    return (await core.handlePageRequest(JSON.stringify(request))) ?? { type: RESPONSE.ERROR, message: t('noAnswer') };
  } catch (e) {
    return { type: RESPONSE.ERROR, message: String(e?.message ?? e) };
  }
}

/** A button that copies `text`, saying so in its label for a moment. */
function copyButton(text) {
  const button = el('button', t('copy'), { type: 'button', class: 'copy', 'aria-label': `${t('copy')}${t('colon')}${text}` });
  button.addEventListener('click', async () => {
    const done = await navigator.clipboard.writeText(text).then(() => true, () => false);
    button.textContent = t(done ? 'copied' : 'copyFailed');
    setTimeout(() => { button.textContent = t('copy'); }, 1500);
  });
  return button;
}

/**
 * Writes one of the core's sentences into `node`: the parts between backticks as <code>, a
 * command that starts with `mcp-bridge` followed by a copy button; the rest as plain text.
 */
export function say(node, text) {
  const parts = String(text ?? '').split('`');
  // An odd count of backticks: the last one is literal text, not an opening.
  if (parts.length % 2 === 0) parts[parts.length - 2] += `\`${parts.pop()}`;
  node.replaceChildren(...parts.flatMap((part, i) => {
    if (i % 2 === 0) return part ? [document.createTextNode(part)] : [];
    const code = el('code', part);
    return part.startsWith('mcp-bridge') ? [code, copyButton(part)] : [code];
  }));
}
