// Options page glue: collects form values, hands them to the Rust core as `PageRequest`s, and
// writes the answers into the page as text (never as HTML). The page runs its own build of
// the core (`page-core/`, the options backend; the worker's build has only the chat loop),
// over the same storage and bridge. Every check, decision and sentence is the core's or the
// catalog's; the only browser call made here is the host-permission request, which must
// happen inside the click that asks for it.
import { ask, core, el, ready, say, t, translate } from '../pages.js';

// Message names, from ../contract.js (loaded by options.html before this module).
const { page: PAGE, response: RESPONSE } = globalThis.MCP_BRIDGE;
const $ = (id) => document.getElementById(id);

translate();

/** `text` between backticks: a name in a sentence that `say` writes, shown as code. */
const tick = (text) => `\`${text}\``;

/**
 * Text from the bridge or an MCP server (a description, its own message): data in whatever
 * language it came, isolated from the page's sentences around it.
 */
const quoted = (tag, text, attrs) => {
  const node = el(tag, null, attrs);
  node.append(el('bdi', text));
  return node;
};

/** A name (of a server, a site, a host) marked up as code, in bold when `strong`. */
function named(text, strong = true) {
  const code = el('code', text);
  if (!strong) return code;
  const b = el('strong');
  b.append(code);
  return b;
}

/**
 * The sentence for a field the core refused: the field's visible label (its catalog text,
 * code marked) and path, the reason, and that nothing changed.
 */
function fieldProblem(section, field, why) {
  const root = String(field).split(/[.[]/)[0];
  const input = section.querySelector(`[data-field="${CSS.escape(root)}"]`);
  const span = input?.closest('label')?.querySelector('span');
  const label = span?.dataset.i18n ? t(span.dataset.i18n) : span?.textContent;
  return label ? t('fieldProblem', [label, field, why, t('nothingChanged')])
    : t('fieldProblemBare', [field, why, t('nothingChanged')]);
}

/**
 * Writes an answer into `out` and marks the field the core named. Returns the data of a
 * success, or null.
 */
function report(section, out, answer, okText) {
  for (const bad of section.querySelectorAll('[aria-invalid="true"]')) bad.removeAttribute('aria-invalid');
  if (answer?.type === RESPONSE.DATA) {
    out.dataset.state = 'ok';
    say(out, okText ?? t('saved'));
    return answer.data;
  }
  out.dataset.state = 'down';
  const field = answer?.field;
  if (field) {
    const root = String(field).split(/[.[]/)[0];
    section.querySelector(`[data-field="${CSS.escape(root)}"]`)?.setAttribute('aria-invalid', 'true');
    out.dataset.field = field;
    say(out, fieldProblem(section, field, answer.message));
  } else {
    delete out.dataset.field;
    say(out, answer?.message ?? t('noAnswer'));
  }
  return null;
}

$('extension-version').textContent = chrome.runtime.getManifest().version;
await ready;
$('core-version').textContent = core.version();

// ---- menu -----------------------------------------------------------------------------

// The menu marks the section in view.
const links = [...document.querySelectorAll('#menu a')];
const seen = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    for (const a of links) a.setAttribute('aria-current', String(a.hash === `#${entry.target.id}`));
  }
}, { rootMargin: '0px 0px -70% 0px' });
for (const section of document.querySelectorAll('main > section')) seen.observe(section);

// ---- status ---------------------------------------------------------------------------

/**
 * The header's status: the core's one verdict (not running, wrong address, token missing,
 * token rejected, connected), after it paired through the native host where that helps.
 * Pairing may have stored a new address and token: the form shows what is stored now.
 */
async function refreshHealth() {
  const answer = await ask({ type: PAGE.GET_STATUS });
  const out = $('bridge-health');
  const detail = $('bridge-detail');
  if (answer?.type !== RESPONSE.DATA) {
    out.dataset.state = 'down';
    say(out, `${t('bridgeDown')}${t('colon')}${answer?.message ?? ''}`);
    detail.textContent = '';
    return null;
  }
  const status = answer.data;
  out.dataset.state = status.state === 'connected' ? (status.failed?.length ? 'warn' : 'ok') : 'down';
  out.dataset.status = status.state;
  say(out, status.title);
  say(detail, status.detail ?? '');
  const settings = await ask({ type: PAGE.GET_SETTINGS });
  if (settings?.type === RESPONSE.DATA && !$('connection').contains(document.activeElement)) {
    $('bridge-url').value = settings.data.bridgeUrl ?? '';
    $('token').value = settings.data.token ?? '';
  }
  return status;
}

// ---- connection -----------------------------------------------------------------------

$('toggle-token').addEventListener('click', () => {
  const input = $('token');
  input.type = input.type === 'password' ? 'text' : 'password';
  $('toggle-token').textContent = t(input.type === 'password' ? 'showToken' : 'hideToken');
});

$('test-connection').addEventListener('click', async () => {
  const out = $('connection-result');
  out.dataset.state = 'checking';
  out.textContent = t('checking');
  $('services').replaceChildren();
  const answer = await ask({ type: PAGE.TEST_CONNECTION, bridgeUrl: $('bridge-url').value, token: $('token').value });
  const data = report($('connection'), out, answer, '');
  if (!data) return;
  say(out, data.summary);
  $('services').replaceChildren(...data.services.map((s) => {
    const li = el('li', null, { 'data-status': s.status });
    li.append(named(s.name), el('span', ` — ${s.statusText}`));
    if (s.toolCountText) li.append(el('span', ` · ${s.toolCountText}`));
    if (s.description) li.append(' ', quoted('small', s.description));
    return li;
  }));
});

// Saving tests the connection first and says what it found (the core's order and words).
$('save-connection').addEventListener('click', async () => {
  const out = $('connection-result');
  out.dataset.state = 'checking';
  out.textContent = t('checking');
  const answer = await ask({ type: PAGE.SAVE_CONNECTION, bridgeUrl: $('bridge-url').value, token: $('token').value });
  const data = report($('connection'), out, answer, '');
  if (!data) return;
  fillSettings(data.settings);
  say(out, data.message);
  if (!data.connected) out.dataset.state = 'warn';
  refreshHealth();
});

// ---- settings -------------------------------------------------------------------------

function fillSettings(s) {
  $('bridge-url').value = s.bridgeUrl;
  $('token').value = s.token;
  $('language').value = s.language;
  $('auto-send').checked = s.autoSend;
  $('auto-execute').checked = s.autoExecute;
  $('stack-lines').value = String(s.stackLines);
  $('max-auto-rounds').value = String(s.maxAutoRounds);
}

const numberOrText = (input) => (Number.isNaN(input.valueAsNumber) ? input.value : input.valueAsNumber);

$('save-behaviour').addEventListener('click', async () => {
  const answer = await ask({
    type: PAGE.SAVE_SETTINGS,
    settings: {
      language: $('language').value,
      autoSend: $('auto-send').checked,
      autoExecute: $('auto-execute').checked,
      stackLines: numberOrText($('stack-lines')),
      maxAutoRounds: numberOrText($('max-auto-rounds')),
    },
  });
  if (report($('advanced'), $('behaviour-result'), answer)) fillSettings(answer.data);
});

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

async function loadSites() {
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
    site.append(named(s.name, false), s.builtin ? '' : ' ★');
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
    li.append(named(s.name), t('openParen'), named(s.id, false), t('closeParen'), ' ', named(s.hosts.join(', '), false),
      el('span', s.overrides ? ` · ${t('overrides')} ` : ' '), edit, remove);
    return li;
  }));
}

// ---- call history ---------------------------------------------------------------------

function showHistory(h) {
  $('counters').tBodies[0].replaceChildren(...h.counters.map((c) => {
    const tr = el('tr', null, { 'data-blocked': String(c.blocked) });
    const code = (text) => { const td = el('td'); td.append(el('code', text)); return td; };
    tr.append(code(c.server), code(c.tool), el('td', `${c.failures} / ${h.limit}`), el('td', c.refused),
      el('td', t(c.blocked ? 'stateRefused' : 'stateCounting')));
    return tr;
  }));
}

async function loadHistory() {
  const answer = await ask({ type: PAGE.GET_HISTORY });
  const out = $('history-result');
  const data = report($('history'), out, answer, '');
  if (!data) return;
  say(out, data.blocked.length ? t('refusedTools', [data.blocked.map(tick).join(t('comma'))]) : t('noneRefused'));
  if (data.blocked.length) out.dataset.state = 'warn';
  showHistory(data);
}

$('refresh-history').addEventListener('click', loadHistory);
$('reset-history').addEventListener('click', async () => {
  const answer = await ask({ type: PAGE.RESET_HISTORY });
  const data = report($('history'), $('history-result'), answer, '');
  if (!data) return;
  say($('history-result'), t('historyReset', [data.message]));
  if (data.history) showHistory(data.history);
});

// ---- tools ----------------------------------------------------------------------------

/** One tool's row, as the core describes it; a policy change redraws it from the answer. */
function toolRow(tool) {
  const out = $('tools-result');
  const tr = el('tr', null, { 'data-tool': tool.key, 'data-policy': tool.policy });
  const name = el('td');
  name.append(el('code', tool.name));
  if (tool.paramsText) say(name.appendChild(el('small', null, { class: 'params' })), tool.paramsText);
  if (tool.hints.length) name.append(el('small', ` · ${tool.hints.join(t('comma'))}`, { class: 'annotations' }));
  const policy = el('select', null, { 'aria-label': `${t('colPolicy')}${t('colon')}${tool.name}` });
  for (const c of tool.choices) policy.append(el('option', c.label, { value: c.value }));
  policy.value = tool.choice;
  policy.addEventListener('change', async () => {
    const chosen = policy.value === 'default' ? null : policy.value;
    const answer = await ask({ type: PAGE.SET_TOOL_POLICY, key: tool.key, policy: chosen });
    const data = report($('tools'), out, answer, t('policySaved', [tick(tool.key), policy.selectedOptions[0].textContent]));
    if (data?.tool) tr.replaceWith(toolRow(data.tool));
    else if (!data) policy.value = tool.choice;
  });
  const cell = el('td', null, { class: 'policy' });
  // Why this policy is in force: the user's choice, or what the tool says about itself.
  cell.append(policy, el('small', tool.policyWhy, { class: 'policy-why', 'data-source': tool.policySource }));
  // The user alone chooses to let this tool's results through with secrets unmasked.
  const unmasked = el('input', null, { type: 'checkbox', class: 'unmasked' });
  unmasked.checked = tool.unmasked;
  unmasked.addEventListener('change', async () => {
    const answer = await ask({ type: PAGE.SET_TOOL_UNMASKED, key: tool.key, unmasked: unmasked.checked });
    report($('tools'), out, answer, t(unmasked.checked ? 'unmaskedOn' : 'unmaskedOff', [tick(tool.key)]));
  });
  const label = el('label', null, { class: 'unmasked-label' });
  label.append(unmasked, ` ${t('unmaskedLabel')}`);
  cell.append(label);
  // Off by default: after a chat read untrusted content, this tool still runs unasked when
  // its policy allows it; the risk is said beside the switch.
  const exempt = el('input', null, { type: 'checkbox', class: 'exempt' });
  exempt.checked = tool.exempt;
  exempt.addEventListener('change', async () => {
    const answer = await ask({ type: PAGE.SET_TOOL_EXEMPT, key: tool.key, exempt: exempt.checked });
    report($('tools'), out, answer, t(exempt.checked ? 'exemptOn' : 'exemptOff', [tick(tool.key)]));
  });
  const exemptLabel = el('label', null, { class: 'exempt-label' });
  exemptLabel.append(exempt, ` ${t('exemptLabel')}`);
  cell.append(exemptLabel);
  tr.append(name, quoted('td', tool.description), cell);
  return tr;
}

let toolsSeq = 0;
/** Reads every server's tools; a read started later wins over one still on its way. */
async function loadTools() {
  const seq = ++toolsSeq;
  const out = $('tools-result');
  const answer = await ask({ type: PAGE.GET_TOOLS });
  if (seq !== toolsSeq) return;
  const data = report($('tools'), out, answer, '');
  if (!data) { $('tool-list').replaceChildren(); return; }
  $('tool-list').replaceChildren(...data.services.map(({ service, tools, problem, trusted }) => {
    const box = el('div', null, { class: 'service', 'data-service': service.name });
    const title = el('h3');
    title.append(named(service.name, false), ` — ${service.statusText}`);
    box.append(title);
    // Trusting a server believes its tools' own read-only claims (the tools' rows change).
    const trust = el('input', null, { type: 'checkbox', class: 'trusted' });
    trust.checked = trusted;
    trust.addEventListener('change', async () => {
      const answer = await ask({ type: PAGE.SET_SERVER_TRUSTED, server: service.name, trusted: trust.checked });
      if (report($('tools'), out, answer, t(trust.checked ? 'trustedOn' : 'trustedOff', [tick(service.name)]))) loadTools();
    });
    const trustLabel = el('label', null, { class: 'trusted-label' });
    trustLabel.append(trust, ` ${t('trustedLabel')}`);
    box.append(trustLabel);
    if (service.description) box.append(quoted('p', service.description));
    if (problem) say(box.appendChild(el('p', null, { class: 'result', 'data-state': 'down' })), problem);
    const table = el('table', null, { class: 'tool-list' });
    table.append(...tools.map(toolRow));
    box.append(table);
    return box;
  }));
  out.textContent = '';
  delete out.dataset.state;
  document.body.dataset.tools = 'loaded';
}

$('load-tools').addEventListener('click', loadTools);

// ---- servers -------------------------------------------------------------------------

const POLL_MS = 3000;
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
function loadServers(options) {
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
    li.append(named(s.name), el('span', ` — ${s.statusText}`, { class: 'status', 'data-status': s.status }));
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

// While the page is visible the list follows the bridge: a crash, a hand edit of the config
// file, a server that finished starting.
setInterval(() => {
  if (document.visibilityState === 'visible' && $('token').value && !reading) loadServers({ quiet: true });
}, POLL_MS);

// ---- error log ------------------------------------------------------------------------

const logFilter = () => ({ category: $('log-category').value || null, text: $('log-text').value || null });

async function loadErrors() {
  const out = $('errors-result');
  const data = report($('errors'), out, await ask({ type: PAGE.GET_ERROR_LOG, filter: logFilter() }), '');
  if (!data) return;
  out.textContent = t('logSummary', [String(data.entries.length), String(data.kept), String(data.capacity), String(data.total)]);
  // The category filter's choices, in the page's language, from the core.
  const filter = $('log-category');
  if (filter.options.length === 1) {
    filter.append(...Object.entries(data.labels ?? {}).map(([code, label]) => el('option', label, { value: code })));
  }
  $('error-counts').replaceChildren(...Object.entries(data.counts).flatMap(([cat, n]) => [el('dt', data.labels?.[cat] ?? cat), el('dd', n, { 'data-category': cat })]));
  $('log-entries').replaceChildren(...data.entries.map((e) => {
    const d = el('details', null, { class: 'entry', 'data-category': e.category });
    // When, where (the site, `server:tool`) and the error's type as code, then its message as
    // it was recorded: data, in the language of the report it came with.
    const summary = el('summary', `${new Date(e.timeMs).toLocaleString()} · `);
    const where = [e.site, e.server ? `${e.server}:${e.tool}` : e.tool].filter(Boolean);
    summary.append(...where.flatMap((w) => [el('code', w), ' · ']), el('code', e.errorType), ' ', el('bdi', e.message));
    d.append(summary);
    const dl = el('dl');
    const row = (k, v, code = false) => {
      if (v === null || v === undefined || v === '') return;
      const dd = el('dd', code ? null : v);
      if (code) dd.append(el('code', v));
      dl.append(el('dt', t(k)), dd);
    };
    row('logCategory', data.labels?.[e.category] ?? e.category);
    row('logRetryable', t(e.retryable ? 'yes' : 'no'));
    row('logStatus', e.status);
    row('logCode', e.code, true);
    row('logTraceId', e.traceId, true);
    const block = (text, cls) => { const pre = el('pre', null, { class: cls }); pre.append(el('code', text)); return pre; };
    d.append(dl, el('h4', t('logArguments')), block(JSON.stringify(e.arguments, null, 2), 'arguments'));
    if (e.traceback) d.append(el('h4', t('logTraceback')), block(e.traceback, 'traceback'));
    return d;
  }));
}

$('log-category').addEventListener('change', loadErrors);
$('log-text').addEventListener('input', loadErrors);
$('clear-log').addEventListener('click', async () => {
  if (report($('errors'), $('errors-result'), await ask({ type: PAGE.CLEAR_ERROR_LOG }))) loadErrors();
});
$('export-log').addEventListener('click', async () => {
  const data = report($('errors'), $('errors-result'), await ask({ type: PAGE.EXPORT_ERROR_LOG, filter: logFilter() }), t('exported'));
  if (!data) return;
  const url = URL.createObjectURL(new Blob([data.json], { type: 'application/json' }));
  const a = el('a', null, { href: url, download: data.filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
});

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
  const url = URL.createObjectURL(new Blob([data.json], { type: 'application/json' }));
  const a = el('a', null, { href: url, download: data.filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
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
  let host = '';
  try { host = new URL(url).hostname.toLowerCase(); } catch { /* the core says what is wrong */ }
  // The origin the core registers the content script on (custom_sites::origins).
  const granted = host ? chrome.permissions.request({ origins: [`https://${host}/*`] }) : Promise.resolve(true);
  granted.then(async (ok) => {
    if (!ok) {
      $('enable-result').dataset.state = 'down';
      $('enable-result').textContent = t('permissionRefused');
      return;
    }
    const answer = await ask({ type: PAGE.ENABLE_SITE, url });
    const data = report($('custom-sites'), $('enable-result'), answer, '');
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

function showSiteList(answer) {
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
  const checked = list.checkedMs ? new Date(list.checkedMs).toLocaleString() : t('siteListNever');
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

// ---- start ----------------------------------------------------------------------------

const settings = await ask({ type: PAGE.GET_SETTINGS });
if (settings?.type === RESPONSE.DATA) fillSettings(settings.data);
if (settings?.data?.unreadable) {
  $('behaviour-result').dataset.state = 'down';
  $('behaviour-result').textContent = t('settingsUnreadable', [settings.data.unreadable]);
}
const [status] = await Promise.all([refreshHealth(), loadSites(), loadErrors(),
  ask({ type: PAGE.GET_SITE_LIST }).then(showSiteList)]);
// The everyday sections fill themselves: servers and their tools as soon as the bridge answers.
if (status?.state === 'connected') await Promise.all([loadHistory(), loadServers(), loadTools()]);
document.body.dataset.ready = 'true';
