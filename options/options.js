// Options page glue, the entry (one module per section beside it): collects form values,
// hands them to the Rust core as `PageRequest`s, and writes the answers into the page as text
// (never as HTML). The page runs its own instance of the core (`core/`, the same build the
// worker runs; here it answers only the page's requests), over the same storage and bridge.
// Checks and sentences are the core's or the catalog's (a refused field's sentence is put
// together here around the field's label); the only browser call made here is the
// host-permission request, which must happen inside the click that asks for it.
import { ask, core, t } from '../pages.js';
import { $, PAGE, RESPONSE } from './shared.js';
import { fillSettings, loadHistory, refreshHealth } from './connection.js';
import { loadSites, showSiteList } from './sites.js';
import { loadTools } from './tools.js';
import { loadServers } from './servers.js';
import { loadErrors } from './errors.js';

$('core-version').textContent = core.version();

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
document.addEventListener('bridge-connected', () => Promise.all([loadHistory(), loadServers(), loadTools()]));
document.body.dataset.ready = 'true';
