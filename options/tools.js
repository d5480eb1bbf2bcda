// The servers' tools: each tool's policy, unmasking and exemption, and trusting a server.
import { ask, el, say, t } from '../pages.js';
import { $, PAGE, icon, named, quoted, report, tick } from './shared.js';

// ---- tools ----------------------------------------------------------------------------

/** One tool's row, as the core describes it; a policy change redraws it from the answer. */
function toolRow(tool) {
  const out = $('tools-result');
  const tr = el('tr', null, { 'data-tool': tool.key, 'data-policy': tool.policy });
  const name = el('td');
  name.append(...icon(tool.icon), el('code', tool.name));
  if (tool.paramsText) say(name.appendChild(el('small', null, { class: 'params' })), tool.paramsText);
  if (tool.hints.length) name.append(el('small', ` · ${tool.hints.join(t('comma'))}`, { class: 'annotations' }));
  const policy = el('select', null, { 'aria-label': `${t('colPolicy')}${t('colon')}${tool.name}` });
  for (const c of tool.choices) policy.append(el('option', c.label, { value: c.value }));
  policy.value = tool.choice;
  policy.addEventListener('change', async () => {
    const answer = await ask({ type: PAGE.SET_TOOL_POLICY, key: tool.key, policy: policy.value });
    const data = report($('tools'), out, answer, t('policySaved', [tick(tool.key), policy.selectedOptions[0].textContent]));
    if (data?.tool) tr.replaceWith(toolRow(data.tool));
    else if (!data) policy.value = tool.choice;
  });
  const cell = el('td', null, { class: 'policy' });
  // Why this policy is in force: the user's choice, or what the tool says about itself.
  cell.append(policy, el('small', tool.policyWhy, { class: 'policy-why', 'data-source': tool.policySource }));
  // Choices kept for single sites (made in the float there), each with a way to forget it.
  for (const choice of tool.onSites) {
    const line = el('small', null, { class: 'site-choice', 'data-site': choice.site });
    say(line, choice.line);
    const forget = el('button', t('siteChoiceForget'), { type: 'button', class: 'forget-site-choice' });
    forget.addEventListener('click', async () => {
      const answer = await ask({ type: PAGE.SET_TOOL_POLICY, key: choice.key, policy: 'default', site: choice.site });
      const data = report($('tools'), out, answer, t('siteChoiceForgotten', [tick(tool.key), tick(choice.site)]));
      // A choice kept for any server (`*:tool`) names no row to redraw: read them all again.
      if (data?.tool) tr.replaceWith(toolRow(data.tool));
      else if (data) loadTools();
    });
    line.append(' ', forget);
    cell.append(line);
  }
  // The rarer, riskier switches wait in the tool's details, each with its risk beside it.
  const more = el('details', null, { class: 'tool-more' });
  more.append(el('summary', t('toolDetails')));
  // The user alone chooses to let this tool's results through with secrets unmasked.
  const unmasked = el('input', null, { type: 'checkbox', class: 'unmasked' });
  unmasked.checked = tool.unmasked;
  unmasked.addEventListener('change', async () => {
    const answer = await ask({ type: PAGE.SET_TOOL_UNMASKED, key: tool.key, unmasked: unmasked.checked });
    report($('tools'), out, answer, t(unmasked.checked ? 'unmaskedOn' : 'unmaskedOff', [tick(tool.key)]));
  });
  const label = el('label', null, { class: 'unmasked-label' });
  label.append(unmasked, ` ${t('unmaskedLabel')}`);
  more.append(label, el('small', t('unmaskedRisk'), { class: 'risk' }));
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
  more.append(exemptLabel);
  // A switch already on keeps the details open, so what is in force is seen.
  more.open = tool.unmasked || tool.exempt;
  cell.append(more);
  tr.append(name, quoted('td', tool.description), cell);
  return tr;
}

let toolsSeq = 0;
/** Reads every server's tools; a read started later wins over one still on its way. */
export async function loadTools() {
  const seq = ++toolsSeq;
  const out = $('tools-result');
  const answer = await ask({ type: PAGE.GET_TOOLS });
  if (seq !== toolsSeq) return;
  const data = report($('tools'), out, answer, '');
  if (!data) { $('tool-list').replaceChildren(); return; }
  $('tool-list').replaceChildren(...data.services.map(({ service, tools, problem, trusted }) => {
    const box = el('div', null, { class: 'service', 'data-service': service.name });
    const title = el('h3');
    title.append(...icon(service.icon), named(service.name, false), ` — ${service.statusText}`);
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
