// The error log: filtered, counted, cleared and exported.
import { ask, el, t } from '../pages.js';
import { $, PAGE, report, saveJson } from './shared.js';

// ---- error log ------------------------------------------------------------------------

const logFilter = () => ({ category: $('log-category').value || null, text: $('log-text').value || null });

export async function loadErrors() {
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
    const summary = el('summary', `${new Date(e.timeMs).toLocaleString(data.locale)} · `);
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
  saveJson(data);
});
