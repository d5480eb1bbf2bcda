// The MCP servers: the list (following the bridge while the page is visible), the editor,
// sign-in, and importing servers from other clients' configs.
import { ask, el, say, t } from '../pages.js';
import { $, PAGE, RESPONSE, askingAgain, icon, named, report, tick } from './shared.js';
import { loadTools } from './tools.js';

// ---- servers -------------------------------------------------------------------------

// The list follows the bridge (a crash, a hand edit of the config file, a server that
// finished starting): the core says when to read it again.
const listAgain = askingAgain();
// The last list shown (to redraw only on a change) and the core's fingerprint of names,
// statuses and tool counts (the tools list is read again when it changes).
let shownServers = '';
let fingerprint = null;
// Reads of the list, one after another: a read asked for after a change starts after it.
let listing = Promise.resolve();
let reading = 0;
// The server the editor holds (null: a new one).
let editing = null;
// The server the message under the buttons is about: once its row shows that it failed, the
// row speaks for it in red and the message is no longer drawn as a success.
let messageAbout = null;

/** Reads the servers; redraws the list when it changed, the tools when the fingerprint did. */
export function loadServers(options) {
  reading++;
  listing = listing.then(() => readServers(options)).catch(() => {}).finally(() => { reading--; });
  return listing;
}

async function readServers({ quiet = false } = {}) {
  const answer = await ask({ type: PAGE.LIST_SERVERS });
  const out = $('servers-result');
  if (answer?.type !== RESPONSE.DATA) {
    // Only the text: a poll must not clear the field the editor marked.
    out.dataset.state = 'down';
    out.dataset.poll = 'true';
    say(out, answer?.message ?? t('noAnswer'));
    return;
  }
  if (!quiet || out.dataset.poll) {
    delete out.dataset.poll;
    out.textContent = '';
  }
  const data = answer.data;
  // A read already under way schedules the next one itself.
  listAgain(data.recheckMs, () => { if (!reading) loadServers({ quiet: true }); });
  say($('config-path'), data.configPath ? t('configPath', [`\`${data.configPath}\``]) : '');
  if (!data.configValid) {
    $('servers-result').dataset.state = 'down';
    $('servers-result').textContent = t('configInvalid');
  }
  // Redrawn only on a change: a redraw would drop an open confirmation.
  const text = JSON.stringify(data.servers);
  if (text !== shownServers) {
    shownServers = text;
    showServers(data.servers);
  }
  const about = data.servers.find((s) => s.name === messageAbout);
  if (messageAbout && (!about || about.status !== 'starting')) {
    messageAbout = null;
    if (about && about.status !== 'running' && out.dataset.state === 'ok') delete out.dataset.state;
  }
  const before = fingerprint;
  fingerprint = data.fingerprint;
  if (before !== null && before !== fingerprint) loadTools();
}

/**
 * After a change made here: one message for it (replacing the one before, the editor's
 * included), then the list and the tools at once.
 */
async function changed(answer, okText, server) {
  const out = $('servers-result');
  delete out.dataset.poll;
  $('editor-result').textContent = '';
  messageAbout = null;
  if (!report($('server-list'), out, answer, okText)) return false;
  messageAbout = server ?? null;
  await loadServers({ quiet: true });
  loadTools();
  return true;
}

function showServers(list) {
  $('server-list').replaceChildren(...list.map((s) => {
    const li = el('li', null, { 'data-server': s.name, 'data-status': s.status });
    li.append(...icon(s.icon), named(s.name), el('span', ` — ${s.statusText}`, { class: 'status', 'data-status': s.status }));
    li.append(el('span', ` · ${s.toolCountText}`, { class: 'tool-count' }));
    if (s.pid) li.append(el('small', ' · '), el('code', `pid ${s.pid}`));
    const toggle = el('label', null, { class: 'switch' });
    const box = el('input', null, { type: 'checkbox', 'data-kind': 'enabled' });
    box.checked = s.enabled;
    box.disabled = !s.definition;
    box.addEventListener('change', async () => {
      const answer = await ask({ type: PAGE.SET_SERVER_ENABLED, name: s.name, enabled: box.checked });
      if (!await changed(answer, t(box.checked ? 'serverEnabled' : 'serverDisabled', [tick(s.name)]), s.name)) box.checked = !box.checked;
    });
    toggle.append(box, el('span', ` ${t('colEnabled')}`));
    const restart = el('button', t('restart'), { type: 'button', 'data-action': 'restart' });
    restart.addEventListener('click', async () => {
      changed(await ask({ type: PAGE.RESTART_SERVER, name: s.name }), t('serverRestarted', [tick(s.name)]), s.name);
    });
    const edit = el('button', t('edit'), { type: 'button', 'data-action': 'edit' });
    edit.addEventListener('click', () => openEditor(s.name, s.definition));
    const remove = el('button', t('remove'), { type: 'button', 'data-action': 'remove' });
    remove.addEventListener('click', () => {
      // Asked in the row itself: removing stops the server and deletes its entry.
      const sure = el('span', null, { class: 'confirm' });
      say(sure, ` ${t('confirmRemove', [tick(s.name)])} `);
      const yes = el('button', t('remove'), { type: 'button', 'data-action': 'confirm-remove' });
      const no = el('button', t('cancel'), { type: 'button' });
      yes.addEventListener('click', async () => {
        sure.remove();
        changed(await ask({ type: PAGE.REMOVE_SERVER, name: s.name }), t('serverRemoved', [tick(s.name)]));
      });
      no.addEventListener('click', () => sure.remove());
      sure.append(yes, no);
      li.querySelector('.confirm')?.remove();
      remove.after(sure);
    });
    // The row's controls in one group, so a control added later sits with them.
    const actions = el('span', null, { class: 'actions' });
    actions.append(toggle, restart, edit, remove);
    li.append(actions);
    if (!s.definition) { edit.disabled = true; remove.disabled = true; restart.disabled = s.status === 'disabled'; }
    if (s.nameWarning) say(li.appendChild(el('p', null, { class: 'name-warning result', 'data-state': 'down' })), s.nameWarning);
    if (s.readsEnv) say(li.appendChild(el('p', null, { class: 'reads-env' })), s.readsEnv);
    if (s.signIn) li.append(signInCell(s));
    if (s.hint) say(li.appendChild(el('p', null, { class: 'server-hint result', 'data-state': 'down' })), s.hint);
    if (s.lastError || s.stderr) {
      // The bridge's reason and the server's own lines, as they came; the label between is ours.
      const pre = el('pre', null, { class: 'stderr' });
      if (s.lastError) pre.append(el('bdi', s.lastError));
      if (s.lastError && s.stderr) pre.append('\n');
      if (s.stderr) {
        const label = el('span');
        say(label, t('stderrLines'));
        pre.append(label, '\n', el('bdi', s.stderr));
      }
      li.append(pre);
    }
    return li;
  }));
}

/**
 * A remote server's sign-in: its state in words, *Sign in* (the authorization page opens in
 * a new tab; the list's poll shows the tools once the callback has landed) or *Sign out*.
 */
function signInCell(s) {
  const cell = el('p', null, { class: 'sign-in', 'data-sign-in': s.signIn.state });
  const state = el('span', null, { class: 'sign-in-state' });
  say(state, s.signIn.text);
  cell.append(state);
  if (s.signIn.canSignIn) {
    const button = el('button', t('signIn'), { type: 'button', 'data-action': 'sign-in' });
    button.addEventListener('click', async () => {
      const answer = await ask({ type: PAGE.SIGN_IN_SERVER, name: s.name });
      const data = report($('server-list'), $('servers-result'), answer, '');
      if (!data?.authorizationUrl) return;
      const open = () => {
        chrome.tabs.create({ url: data.authorizationUrl });
        say($('servers-result'), t('signInOpened', [s.name]));
      };
      if (!data.notice) return open();
      // The page is on another origin than the server's authorization server: the user is
      // told where it is and opens it only when they say so.
      const sure = el('span', null, { class: 'confirm' });
      say(sure, ` ${data.notice} `);
      const yes = el('button', t('signIn'), { type: 'button', 'data-action': 'confirm-sign-in' });
      const no = el('button', t('cancel'), { type: 'button' });
      yes.addEventListener('click', () => { sure.remove(); open(); });
      no.addEventListener('click', () => sure.remove());
      sure.append(yes, no);
      cell.querySelector('.confirm')?.remove();
      button.after(sure);
    });
    cell.append(' ', button);
  }
  if (s.signIn.canSignOut) {
    const button = el('button', t('signOut'), { type: 'button', 'data-action': 'sign-out' });
    button.addEventListener('click', async () => {
      changed(await ask({ type: PAGE.SIGN_OUT_SERVER, name: s.name }), t('signedOut', [s.name]), s.name);
    });
    cell.append(' ', button);
  }
  return cell;
}

function openEditor(name, definition, notice, keepDemo = false) {
  editing = name;
  $('editor-notice').hidden = !notice;
  say($('editor-notice'), notice ?? '');
  // The first server of one's own: the user may keep the built-in demo server beside it.
  $('keep-demo-row').hidden = !keepDemo;
  $('keep-demo').checked = false;
  $('import-box').hidden = true;
  $('server-editor').hidden = false;
  say($('editor-title'), name ? t('editServer', [tick(name)]) : t('addServer'));
  $('server-name').value = name ?? '';
  $('server-name').readOnly = !!name;
  $('reveal-server').hidden = !name;
  $('server-json').value = JSON.stringify(definition ?? {}, null, 2);
  $('editor-result').textContent = '';
  checkServer();
}

let serverCheckSeq = 0;
/** Asks the core whether the name and definition would be accepted; marks the field if not. */
async function checkServer() {
  const seq = ++serverCheckSeq;
  const answer = await ask({ type: PAGE.CHECK_SERVER, name: $('server-name').value, json: $('server-json').value });
  if (seq !== serverCheckSeq) return;
  report($('server-editor'), $('editor-result'), answer, t('serverValid'));
}

let serverTyping;
for (const id of ['server-name', 'server-json']) {
  $(id).addEventListener('input', () => {
    clearTimeout(serverTyping);
    serverTyping = setTimeout(checkServer, 300);
  });
}
$('add-server').addEventListener('click', async () => {
  const answer = await ask({ type: PAGE.SERVER_TEMPLATE, kind: $('server-template').value });
  const template = report($('servers'), $('servers-result'), answer, '');
  if (!template) return;
  $('servers-result').textContent = '';
  openEditor(null, template.definition, template.notice, template.keepDemo);
  $('server-name').value = template.name;
  checkServer();
});
$('close-editor').addEventListener('click', () => { $('server-editor').hidden = true; editing = null; });
$('save-server').addEventListener('click', async () => {
  const name = $('server-name').value;
  clearTimeout(serverTyping);
  serverCheckSeq++;
  const keepDemo = !$('keep-demo-row').hidden && $('keep-demo').checked;
  const answer = await ask({ type: PAGE.SAVE_SERVER, name, json: $('server-json').value, keepDemo });
  const ok = report($('server-editor'), $('editor-result'), answer, '');
  if (!ok) return;
  // Closed once the list shows the change, so an Edit right after opens what was saved.
  await changed(answer, ok.message, name);
  $('server-editor').hidden = true;
  editing = null;
});
$('reveal-server').addEventListener('click', async () => {
  const answer = await ask({ type: PAGE.REVEAL_SERVER, name: editing });
  const data = report($('server-editor'), $('editor-result'), answer, t('secretsShown'));
  if (data?.definition) $('server-json').value = JSON.stringify(data.definition, null, 2);
});
$('refresh-servers').addEventListener('click', () => loadServers());

$('import-servers').addEventListener('click', async () => {
  $('server-editor').hidden = true;
  const out = $('import-result');
  const data = report($('import-box'), $('servers-result'), await ask({ type: PAGE.IMPORT_SERVERS }), '');
  if (!data) return;
  $('import-box').hidden = false;
  out.textContent = '';
  const { sources = [], servers = [] } = data.found ?? {};
  $('import-sources').replaceChildren(...sources.map((f) => {
    const li = el('li', `${f.client}${t('colon')}`);
    li.append(el('code', f.path), ' — ', f.error ? el('bdi', f.error) : t(f.exists ? 'sourceRead' : 'sourceMissing'));
    return li;
  }));
  $('import-list').replaceChildren(...servers.map((c) => {
    const li = el('li', null, { 'data-candidate': c.name });
    const box = el('input', null, { type: 'checkbox', value: c.name });
    box.checked = c.addable;
    box.disabled = !c.addable;
    const label = el('label');
    label.append(box, ' ', named(c.name), el('span', `${t('openParen')}${c.client}${t('closeParen')} `), el('code', JSON.stringify(c.definition)));
    li.append(label);
    if (c.reads_env_text) say(li.appendChild(el('small', null, { class: 'reads-env' })), ` — ${c.reads_env_text}`);
    if (c.clash || c.error) say(li.appendChild(el('small', null, { class: 'confirm' })), ` — ${c.clash ?? c.error}`);
    return li;
  }));
  if (!servers.length) out.textContent = t('importNothing');
});
$('close-import').addEventListener('click', () => { $('import-box').hidden = true; });
$('import-picked').addEventListener('click', async () => {
  const names = [...$('import-list').querySelectorAll('input:checked')].map((b) => b.value);
  const out = $('import-result');
  const answer = await ask({ type: PAGE.IMPORT_SERVERS, names });
  const data = report($('import-box'), out, answer, '');
  if (!data) return;
  const lines = [t('importAdded', [data.added.map(tick).join(t('comma')) || '—'])];
  for (const c of data.clashes ?? []) lines.push(t('importClash', [tick(c.name), c.reason ?? '']));
  for (const c of data.invalid ?? []) lines.push(t('importInvalid', [tick(c.name), c.error ?? '']));
  say(out, lines.join('\n'));
  if (data.clashes?.length || data.invalid?.length) out.dataset.state = 'warn';
  await loadServers({ quiet: true });
  loadTools();
});
