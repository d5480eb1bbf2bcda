// The toolbar popup: the connection's status as the core judges it (the same verdict as the
// options header and the float), "Insert instructions" into the active chat tab, "Settings".
// It only draws: the status comes from the page build of the core (`page-core/`, as the options
// page uses), inserting is the chat tab's own action.
import init, * as core from '../page-core/mcp_bridge_core.js';

const ready = init({ module_or_path: new URL('../page-core/mcp_bridge_core_bg.wasm', import.meta.url) });
const { page: PAGE, response: RESPONSE, popup: POPUP } = globalThis.MCP_BRIDGE;
const $ = (id) => document.getElementById(id);
const t = (key, subs) => chrome.i18n.getMessage(key, subs) || key;

for (const el of document.querySelectorAll('[data-i18n]')) {
  const text = chrome.i18n.getMessage(el.dataset.i18n);
  if (text) el.textContent = text;
}

$('settings').addEventListener('click', () => { chrome.runtime.openOptionsPage(); window.close(); });

/** The active tab, when its page runs our content script (it answers with `ok`). */
async function chatTab() {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true }).catch(() => []);
  return tab?.id ?? null;
}

$('insert').addEventListener('click', async () => {
  const tab = await chatTab();
  const out = $('insert-result');
  const answer = tab === null ? null
    : await chrome.tabs.sendMessage(tab, { type: POPUP.INSERT_INSTRUCTIONS }).catch(() => null);
  if (answer?.ok) { window.close(); return; }
  out.dataset.state = 'down';
  out.textContent = t('popupNoChat');
});

$('pick').addEventListener('click', async () => {
  const tab = await chatTab();
  const answer = tab === null ? null
    : await chrome.tabs.sendMessage(tab, { type: POPUP.PICK_PARTS }).catch(() => null);
  if (answer?.ok) { window.close(); return; }
  $('insert-result').dataset.state = 'down';
  $('insert-result').textContent = t('popupNoChat');
});

// The active tab's address (the toolbar click grants `activeTab`), read before the click
// below: the browser's permission prompt must come straight from that click.
const [activeTab] = await chrome.tabs.query({ active: true, currentWindow: true }).catch(() => []);
$('enable').addEventListener('click', () => {
  const out = $('insert-result');
  let host = '';
  try { host = /^https?:$/.test(new URL(activeTab?.url).protocol) ? new URL(activeTab.url).hostname : ''; } catch { /* no address */ }
  if (!host) {
    out.dataset.state = 'down';
    out.textContent = t('popupNoPage');
    return;
  }
  chrome.permissions.request({ origins: [`https://${host.toLowerCase()}/*`] }).then(async (ok) => {
    if (!ok) {
      out.dataset.state = 'down';
      out.textContent = t('permissionRefused');
      return;
    }
    await ready;
    const answer = await core.handlePageRequest(JSON.stringify({ type: PAGE.ENABLE_SITE, url: activeTab.url }));
    out.dataset.state = answer?.type === RESPONSE.DATA ? 'ok' : 'down';
    out.textContent = answer?.type === RESPONSE.DATA ? t('popupEnabled', [host]) : (answer?.message ?? t('noAnswer'));
  }, (e) => {
    out.dataset.state = 'down';
    out.textContent = String(e?.message ?? e);
  });
});

async function show() {
  let answer;
  try {
    await ready;
    answer = await core.handlePageRequest(JSON.stringify({ type: PAGE.GET_STATUS }));
  } catch (e) {
    answer = { type: RESPONSE.ERROR, message: String(e?.message ?? e) };
  }
  const state = $('state');
  if (answer?.type !== RESPONSE.DATA) {
    state.dataset.state = 'down';
    state.textContent = answer?.message ?? t('noAnswer');
    return;
  }
  const status = answer.data;
  state.dataset.status = status.state;
  state.dataset.state = status.state === 'connected' ? (status.failed?.length ? 'warn' : 'ok') : 'down';
  state.textContent = status.title;
  $('detail').textContent = status.detail ?? '';
  $('failed').replaceChildren(...(status.failed ?? []).map((name) => {
    const li = document.createElement('li');
    li.textContent = name;
    return li;
  }));
  $('insert').disabled = status.state !== 'connected';
}

// The chat tab's health record (its content script's own: glue to glue): how each part of
// the page was found.
const PARTS = [['input', 'partInput'], ['send', 'partSend'], ['answers', 'partAnswers'], ['generating', 'partGenerating']];
const FOUND = { config: 'foundConfig', structure: 'foundStructure', missing: 'foundMissing', pending: 'foundPending' };
async function showHealth() {
  const tab = await chatTab();
  const answer = tab === null ? null
    : await chrome.tabs.sendMessage(tab, { type: POPUP.GET_PAGE_HEALTH }).catch(() => null);
  if (!answer?.health) return;
  $('parts').replaceChildren(...PARTS.map(([part, key]) => {
    const li = document.createElement('li');
    li.dataset.part = part;
    li.dataset.found = answer.health[part];
    li.textContent = `${t(key)}: ${t(FOUND[answer.health[part]] ?? 'foundMissing')}`;
    return li;
  }));
  $('health').hidden = false;
}

await Promise.all([show(), showHealth()]);
document.body.dataset.ready = 'true';
