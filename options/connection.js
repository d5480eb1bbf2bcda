// The bridge's status, the connection (address and token), the behaviour settings and the
// call history.
import { ask, el, say, t } from '../pages.js';
import { $, PAGE, RESPONSE, askingAgain, icon, named, quoted, report, tick } from './shared.js';

// ---- status ---------------------------------------------------------------------------

/**
 * The header's status: the core's one verdict (not running, wrong address, token missing,
 * token rejected, connected), after it paired through the native host where that helps.
 * Pairing may have stored a new address and token: the form shows what is stored now.
 */
export async function refreshHealth({ form = true } = {}) {
  const answer = await ask({ type: PAGE.GET_STATUS });
  const out = $('bridge-health');
  const detail = $('bridge-detail');
  needsBridge(answer?.type === RESPONSE.DATA && answer.data.state === 'connected');
  if (answer?.type !== RESPONSE.DATA) {
    out.dataset.state = 'down';
    say(out, `${t('bridgeDown')}${t('colon')}${answer?.message ?? ''}`);
    detail.textContent = '';
    return null;
  }
  const status = answer.data;
  // Until connected the core asks for its status again, so the buttons come on by themselves
  // once the bridge runs.
  statusAgain(status.recheckMs, () => refreshHealth({ form: false }));
  out.dataset.state = status.look;
  out.dataset.status = status.state;
  say(out, status.title);
  say(detail, status.detail ?? '');
  // The form is left alone by the checks made in the background: the user may be typing.
  if (!form) return status;
  const settings = await ask({ type: PAGE.GET_SETTINGS });
  if (settings?.type === RESPONSE.DATA && !$('connection').contains(document.activeElement)) {
    $('bridge-url').value = settings.data.bridgeUrl ?? '';
    $('token').value = settings.data.token ?? '';
  }
  return status;
}

/**
 * The Servers and Tools sections' buttons ask the bridge: while it does not answer they are
 * off, and one line in each section says why.
 */
let bridgeOn = null;
function needsBridge(connected) {
  for (const control of document.querySelectorAll('[data-needs-bridge]')) control.disabled = !connected;
  for (const line of document.querySelectorAll('.needs-bridge')) line.hidden = connected;
  // A bridge that comes (back) fills the sections that need it (options.js listens).
  if (connected && bridgeOn === false) document.dispatchEvent(new Event('bridge-connected'));
  bridgeOn = connected;
}
const statusAgain = askingAgain();

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
    li.append(...icon(s.icon), named(s.name), el('span', ` — ${s.statusText}`));
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
  // The header and the buttons that need the bridge follow before the result is written.
  if (answer?.type === RESPONSE.DATA) await refreshHealth();
  const data = report($('connection'), out, answer, '');
  if (!data) return;
  fillSettings(data.settings);
  say(out, data.message);
  if (!data.connected) out.dataset.state = 'warn';
});

// ---- settings -------------------------------------------------------------------------

export function fillSettings(s) {
  $('bridge-url').value = s.bridgeUrl;
  $('token').value = s.token;
  $('language').value = s.language;
  $('auto-send').checked = s.autoSend;
  $('auto-execute').checked = s.autoExecute;
  $('instructions-as-file').checked = s.instructionsAsFile;
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
      instructionsAsFile: $('instructions-as-file').checked,
      stackLines: numberOrText($('stack-lines')),
      maxAutoRounds: numberOrText($('max-auto-rounds')),
    },
  });
  if (report($('advanced'), $('behaviour-result'), answer)) fillSettings(answer.data);
});

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

export async function loadHistory() {
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
