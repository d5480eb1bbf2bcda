// The options page's list of what left this machine: the calls sent to the bridge, per
// conversation, newest first, each with its masked arguments and what let it run. The core
// keeps and words them (`get-call-log`); this draws them as text.
import { ask, el, t, uiLocale } from '../pages.js';

const { page: PAGE, response: RESPONSE } = globalThis.MCP_BRIDGE;
const list = document.getElementById('call-list');
const when = new Intl.DateTimeFormat(uiLocale, { dateStyle: 'short', timeStyle: 'medium' });

function conversationNode(c, verdicts) {
  const box = el('details', null, { class: 'call-conversation' });
  box.open = true;
  const summary = el('summary');
  summary.append(el('code', c.site), ' ', el('bdi', c.conversation));
  box.append(summary);
  const rows = el('ul', null, { class: 'calls' });
  for (const call of c.calls) {
    const row = el('li');
    const head = el('div');
    head.append(el('time', when.format(call.timeMs)), ' ', el('code', call.server ? `${call.server}:${call.tool}` : call.tool),
      ' — ', el('span', verdicts[call.allowedBy] ?? call.allowedBy, { class: 'verdict' }));
    // The arguments are data as the AI wrote them, in no language of the page's.
    const args = el('pre', null, { class: 'call-arguments' });
    args.append(el('code', call.arguments));
    row.append(head, args);
    rows.append(row);
  }
  box.append(rows);
  return box;
}

async function load() {
  const answer = await ask({ type: PAGE.GET_CALL_LOG });
  if (answer.type !== RESPONSE.DATA) {
    list.replaceChildren(el('p', answer.message ?? t('noAnswer'), { class: 'result', 'data-state': 'down' }));
    return;
  }
  const { conversations, verdicts } = answer.data;
  list.replaceChildren(...(conversations.length
    ? conversations.map((c) => conversationNode(c, verdicts))
    : [el('p', t('callsNone'), { class: 'hint' })]));
}

document.getElementById('refresh-calls').addEventListener('click', load);
// Resetting the call history clears this log too: redraw whenever that section reports.
new MutationObserver(load).observe(document.getElementById('history-result'), { childList: true, characterData: true, subtree: true });
load();
