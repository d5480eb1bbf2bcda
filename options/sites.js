// The chat sites: which are on, the user's own sites (checked, saved with the permission
// their origins need) and the signed site list.
import { ask, core, el, say, t, uiLocale } from '../pages.js';
import { $, PAGE, RESPONSE, named, report, saveJson, tick } from './shared.js';
import { fillSettings } from './connection.js';

$('save-sites').addEventListener('click', async () => {
  const sites = {};
  for (const row of $('site-table').tBodies[0].rows) {
    sites[row.dataset.site] = {
      disabled: !row.querySelector('[data-kind="enabled"]').checked,
      autoInsertInstructions: row.querySelector('[data-kind="autoInsert"]').checked,
    };
  }
  const answer = await ask({ type: PAGE.SAVE_SETTINGS, settings: { sites } });
  if (report($('sites'), $('sites-result'), answer)) fillSettings(answer.data);
});

export async function loadSites() {
  const answer = await ask({ type: PAGE.LIST_SITES });
  if (answer?.type !== RESPONSE.DATA) return;
  const checkbox = (kind, checked) => {
    const box = el('input', null, { type: 'checkbox', 'data-kind': kind });
    box.checked = checked;
    return box;
  };
  $('site-table').tBodies[0].replaceChildren(...answer.data.sites.map((s) => {
    const tr = el('tr', null, { 'data-site': s.id });
    const enabled = el('td');
    enabled.append(checkbox('enabled', s.enabled));
    const insert = el('td');
    insert.append(checkbox('autoInsert', s.autoInsert));
    const site = el('td');
    // A site's name is a name for people, not code: plain text, broken only between words.
    site.append(el('bdi', s.name), s.builtin ? '' : ' ★');
    const hosts = el('td');
    hosts.append(...s.hosts.flatMap((h, i) => (i ? [t('comma'), named(h, false)] : [named(h, false)])));
    tr.append(site, hosts, enabled, insert);
    return tr;
  }));
  $('custom-site-list').replaceChildren(...answer.data.sites.filter((s) => !s.builtin).map((s) => {
    const li = el('li', null, { 'data-site': s.id });
    const edit = el('button', t('edit'), { type: 'button' });
    edit.addEventListener('click', () => { $('site-json').value = s.json; checkSite(); });
    const remove = el('button', t('remove'), { type: 'button' });
    remove.addEventListener('click', async () => {
      const gone = await ask({ type: PAGE.REMOVE_CUSTOM_SITE, id: s.id });
      if (report($('custom-sites'), $('site-result'), gone, t('siteRemoved', [tick(s.id)]))) {
        chrome.permissions.remove({ origins: gone.data.origins }).catch(() => {});
        loadSites();
      }
    });
    const name = el('strong');
    name.append(el('bdi', s.name));
    li.append(name, t('openParen'), named(s.id, false), t('closeParen'), ' ', named(s.hosts.join(', '), false),
      el('span', s.overrides ? ` · ${t('overrides')} ` : ' '), edit, remove);
    return li;
  }));
}

// ---- custom sites ---------------------------------------------------------------------

// The last config the core accepted, with the origins it needs: the permission request
// has to be made synchronously in the Save click, so the check happens beforehand.
let checked = null;
let checkSeq = 0;

async function checkSite() {
  const text = $('site-json').value;
  const seq = ++checkSeq;
  const answer = await ask({ type: PAGE.CHECK_CUSTOM_SITE, json: text });
  if (seq !== checkSeq) return null;
  const data = report($('custom-sites'), $('site-result'), answer, '');
  checked = data ? { text, origins: data.origins } : null;
  if (data) say($('site-result'), t('siteValid', [tick(data.site.name), data.origins.map(tick).join(t('comma'))]));
  return data;
}

let typing;
$('site-json').addEventListener('input', () => {
  clearTimeout(typing);
  typing = setTimeout(checkSite, 400);
});
$('check-site').addEventListener('click', checkSite);
$('save-site').addEventListener('click', () => {
  const text = $('site-json').value;
  if (!checked || checked.text !== text) {
    checkSite();
    return;
  }
  chrome.permissions.request({ origins: checked.origins }).then(async (granted) => {
    if (!granted) {
      $('site-result').dataset.state = 'down';
      $('site-result').textContent = t('permissionRefused');
      return;
    }
    const answer = await ask({ type: PAGE.SAVE_CUSTOM_SITE, json: text });
    if (report($('custom-sites'), $('site-result'), answer, t('siteSaved'))) loadSites();
  }, (e) => {
    $('site-result').dataset.state = 'down';
    $('site-result').textContent = String(e?.message ?? e);
  });
});

// Export, import, and turning a site on with no selectors.
$('export-sites').addEventListener('click', async () => {
  const data = report($('custom-sites'), $('site-result'), await ask({ type: PAGE.EXPORT_CUSTOM_SITES }), t('exported'));
  if (!data) return;
  saveJson(data);
});
// The file is checked first; the permission request must then come from its own click.
let importing = null;
$('import-sites').addEventListener('click', () => $('import-file').click());
$('import-file').addEventListener('change', async () => {
  const file = $('import-file').files[0];
  $('import-file').value = '';
  if (!file) return;
  const text = await file.text();
  const data = report($('custom-sites'), $('site-result'), await ask({ type: PAGE.IMPORT_CUSTOM_SITES, json: text, check: true }), '');
  importing = data ? { text, origins: data.origins } : null;
  $('import-grant').hidden = !importing;
  if (data) say($('site-result'), t('importReady', [data.sites.map(tick).join(t('comma')), data.origins.map(tick).join(t('comma')) || '—']));
});
$('import-grant').addEventListener('click', () => {
  if (!importing) return;
  const { text, origins } = importing;
  const granted = origins.length ? chrome.permissions.request({ origins }) : Promise.resolve(true);
  granted.then(async (ok) => {
    if (!ok) {
      $('site-result').dataset.state = 'down';
      $('site-result').textContent = t('permissionRefused');
      return;
    }
    const answer = await ask({ type: PAGE.IMPORT_CUSTOM_SITES, json: text });
    const data = report($('custom-sites'), $('site-result'), answer, '');
    if (data) {
      say($('site-result'), t('imported', [data.sites.map(tick).join(t('comma'))]));
      importing = null;
      $('import-grant').hidden = true;
      loadSites();
    }
  }, (e) => {
    $('site-result').dataset.state = 'down';
    $('site-result').textContent = String(e?.message ?? e);
  });
});
$('enable-site').addEventListener('click', () => {
  const url = $('enable-url').value.trim();
  // The origins the core registers the content script on; none where it cannot run (the
  // core then says why). Asked of the started core inside the click, where the browser's
  // permission prompt must begin.
  const origins = core.siteOrigins(url);
  const granted = origins.length ? chrome.permissions.request({ origins }) : Promise.resolve(true);
  granted.then(async (ok) => {
    if (!ok) {
      $('enable-result').dataset.state = 'down';
      $('enable-result').textContent = t('permissionRefused');
      return;
    }
    const answer = await ask({ type: PAGE.ENABLE_SITE, url });
    const data = report($('enable-any'), $('enable-result'), answer, '');
    if (data) {
      say($('enable-result'), t(data.already ? 'siteAlready' : 'siteEnabled', [data.site.hosts.map(tick).join(t('comma'))]));
      loadSites();
    }
  }, (e) => {
    $('enable-result').dataset.state = 'down';
    $('enable-result').textContent = String(e?.message ?? e);
  });
});

// ---- site list ------------------------------------------------------------------------

export function showSiteList(answer) {
  const out = $('site-list-state');
  if (answer?.type !== RESPONSE.DATA) {
    report($('site-list'), out, answer, '');
    return;
  }
  const list = answer.data;
  out.dataset.version = list.version ?? '';
  if (list.url) $('site-list-url').value = list.url;
  if (!list.url) {
    out.dataset.state = '';
    out.textContent = t('siteListNone');
    return;
  }
  const checked = list.checkedMs ? new Date(list.checkedMs).toLocaleString(uiLocale) : t('siteListNever');
  const state = list.version
    ? t('siteListState', [String(list.version), String(list.sites.length), checked])
    : t('siteListNoVersion', [checked]);
  out.dataset.state = list.refused ? 'down' : 'ok';
  out.textContent = list.refused ? `${state} ${t('siteListRefused', [list.refused])}` : state;
  loadSites();
}
$('subscribe-list').addEventListener('click', async () => {
  showSiteList(await ask({ type: PAGE.SUBSCRIBE_SITE_LIST, url: $('site-list-url').value }));
});
$('check-list').addEventListener('click', async () => showSiteList(await ask({ type: PAGE.CHECK_SITE_LIST })));
$('unsubscribe-list').addEventListener('click', async () => {
  showSiteList(await ask({ type: PAGE.UNSUBSCRIBE_SITE_LIST }));
  $('site-list-url').value = '';
});
