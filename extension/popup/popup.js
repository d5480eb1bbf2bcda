// The toolbar popup: the connection's status as the core judges it (the same verdict as the
// options header and the float), and one main action for the active tab's site, as the core
// tells whether MCP Bridge runs there: "Insert instructions" (and "Pick page parts") where
// it does, "Turn on for this site" where it could, else "Settings".
// It only draws: the status comes from the page build of the core through `pages.js`, as on
// the options page; inserting is the chat tab's own action.
import { ask, core, el, say, t, translate } from '../pages.js';

const { page: PAGE, response: RESPONSE, popup: POPUP } = globalThis.MCP_BRIDGE;
const $ = (id) => document.getElementById(id);

translate();

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
  // The origins the core registers the content script on; none where it cannot run.
  const origins = activeTab?.url ? core.siteOrigins(activeTab.url) : [];
  if (!origins.length) {
    out.dataset.state = 'down';
    out.textContent = t('popupNoPage');
    return;
  }
  chrome.permissions.request({ origins }).then(async (ok) => {
    if (!ok) {
      out.dataset.state = 'down';
      out.textContent = t('permissionRefused');
      return;
    }
    const answer = await ask({ type: PAGE.ENABLE_SITE, url: activeTab.url });
    out.dataset.state = answer?.type === RESPONSE.DATA ? 'ok' : 'down';
    out.textContent = answer?.type === RESPONSE.DATA ? t('popupEnabled', [answer.data.site.hosts.join(t('comma'))]) : (answer?.message ?? t('noAnswer'));
  }, (e) => {
    out.dataset.state = 'down';
    out.textContent = String(e?.message ?? e);
  });
});

async function show() {
  const answer = await ask({ type: PAGE.GET_STATUS });
  const state = $('state');
  if (answer?.type !== RESPONSE.DATA) {
    state.dataset.state = 'down';
    state.textContent = answer?.message ?? t('noAnswer');
    return;
  }
  const status = answer.data;
  state.dataset.status = status.state;
  state.dataset.state = status.look;
  state.textContent = status.title;
  // The detail may name a command (`mcp-bridge install`): marked up, with a copy button.
  say($('detail'), status.detail ?? '');
  $('failed').replaceChildren(...(status.failed ?? []).map((name) => el('li', name)));
  $('insert').disabled = status.state !== 'connected';
}

// The chat tab's health record (its content script's own: glue to glue): how each part of
// the page was found.
const PARTS = [['input', 'partInput'], ['send', 'partSend'], ['answers', 'partAnswers'], ['generating', 'partGenerating']];
const FOUND = { config: 'foundConfig', structure: 'foundStructure', learned: 'foundLearned', missing: 'foundMissing', pending: 'foundPending' };
async function showHealth() {
  const tab = await chatTab();
  const answer = tab === null ? null
    : await chrome.tabs.sendMessage(tab, { type: POPUP.GET_PAGE_HEALTH }).catch(() => null);
  if (!answer?.health) return;
  $('parts').replaceChildren(...PARTS.map(([part, key]) => {
    const found = answer.health[part];
    return el('li', t('partFound', [t(key), t(FOUND[found] ?? 'foundMissing')]), { 'data-part': part, 'data-found': found });
  }));
  $('health').hidden = false;
}

/** The buttons for the active tab's site: what the core says of it, one of them the main. */
async function showSite() {
  const answer = activeTab?.url ? await ask({ type: PAGE.SITE_STATE, url: activeTab.url }) : null;
  const site = answer?.type === RESPONSE.DATA ? answer.data : { on: false, canEnable: false };
  $('insert').hidden = !site.on;
  $('pick').hidden = !site.on;
  $('enable').hidden = !site.canEnable;
  const main = site.on ? 'insert' : site.canEnable ? 'enable' : 'settings';
  for (const id of ['insert', 'enable', 'pick', 'settings']) $(id).classList.toggle('primary', id === main);
  if (site.on) $('site').textContent = t('popupOn', [site.name]);
}

await Promise.all([show(), showHealth(), showSite()]);
document.body.dataset.ready = 'true';
