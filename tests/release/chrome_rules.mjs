// The Chrome manifest rules (Chrome's manifest documentation and the Chrome Web Store's
// upload checks) applied to an unpacked extension folder:
//
//   node tests/release/chrome_rules.mjs DIR dev|store VERSION
//
// `store` is the Web Store upload, which must not carry `key` (the store refuses it and
// assigns the ID); `dev` is the development build, which keeps it for its fixed ID.
// Exits non-zero naming every broken rule.
import fs from 'node:fs';
import path from 'node:path';

const [dir, kind, version] = process.argv.slice(2);
if (!dir || !['dev', 'store'].includes(kind) || !version) {
  console.error('usage: chrome_rules.mjs DIR dev|store VERSION');
  process.exit(2);
}
const problems = [];
const problem = (text) => problems.push(text);
const read = (rel) => fs.readFileSync(path.join(dir, rel));
const exists = (rel) => fs.existsSync(path.join(dir, rel));

const m = JSON.parse(read('manifest.json'));

if (m.manifest_version !== 3) problem(`manifest_version is ${m.manifest_version}, not 3`);

// "One to four dot-separated integers", each 0-65535, no leading zeros.
const parts = String(m.version).split('.');
if (
  parts.length < 1 ||
  parts.length > 4 ||
  !parts.every((p) => /^(0|[1-9]\d*)$/.test(p) && Number(p) <= 65535)
) {
  problem(`version '${m.version}' is not 1-4 dot-separated integers 0-65535`);
}
if (m.version !== version) problem(`version is ${m.version}, the release is ${version}`);

if (kind === 'store') {
  if ('key' in m) problem('the store upload carries `key`: the Chrome Web Store refuses it');
  if ('update_url' in m) problem('the store upload carries `update_url`');
} else if (typeof m.key !== 'string') {
  problem('the development build has no `key`, so its ID is not the one the native host allows');
}
if (m.background?.scripts) problem('background.scripts is Firefox\'s; Chrome warns about it');
if (m.browser_specific_settings) problem('browser_specific_settings is Firefox\'s; Chrome warns about it');

// Localized texts and their limits, in every locale.
const locales = exists('_locales') ? fs.readdirSync(path.join(dir, '_locales')) : [];
if (m.default_locale && !locales.includes(m.default_locale)) {
  problem(`default_locale ${m.default_locale} has no _locales/${m.default_locale}/messages.json`);
}
const limits = { name: 75, short_name: 12, description: 132 };
for (const locale of locales.length ? locales : [null]) {
  const messages = locale
    ? JSON.parse(read(`_locales/${locale}/messages.json`))
    : {};
  for (const [field, max] of Object.entries(limits)) {
    if (m[field] === undefined) {
      if (field !== 'short_name') problem(`no ${field}`);
      continue;
    }
    const text = String(m[field]).replace(/__MSG_(\w+)__/g, (_, key) => {
      const entry = messages[key] ?? messages[Object.keys(messages).find((k) => k.toLowerCase() === key.toLowerCase())];
      if (!entry) problem(`${field}: message ${key} missing in locale ${locale}`);
      return entry?.message ?? '';
    });
    if ([...text].length > max) problem(`${field} in ${locale} is ${[...text].length} characters (at most ${max}): ${text}`);
    if (!text.trim()) problem(`${field} in ${locale} is empty`);
  }
}

// Icons: 128 px required for the store; each file a PNG of the size it is declared as.
const pngSize = (rel) => {
  const bytes = read(rel);
  if (bytes.subarray(1, 4).toString() !== 'PNG') return null;
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
};
if (!m.icons?.['128']) problem('no 128 px icon (the store needs one)');
for (const [size, rel] of Object.entries({ ...m.icons, ...m.action?.default_icon })) {
  if (!exists(rel)) {
    problem(`icon ${rel} is missing`);
    continue;
  }
  const actual = pngSize(rel);
  if (!actual) problem(`icon ${rel} is not a PNG`);
  else if (actual[0] !== Number(size) || actual[1] !== Number(size)) {
    problem(`icon ${rel} is ${actual.join('x')}, declared ${size}`);
  }
}

// Every file the manifest names is in the package.
const named = [
  m.background?.service_worker,
  m.options_ui?.page,
  m.options_page,
  m.action?.default_popup,
  ...(m.content_scripts || []).flatMap((c) => [...(c.js || []), ...(c.css || [])]),
].filter(Boolean);
for (const rel of named) if (!exists(rel)) problem(`the manifest names ${rel}, which is not in the package`);

// Manifest V3: no remote code, no eval in extension pages.
const csp = m.content_security_policy?.extension_pages || '';
if (/'unsafe-eval'|https?:|\*/.test(csp.replace(/'wasm-unsafe-eval'/g, ''))) {
  problem(`content_security_policy.extension_pages allows eval or remote code: ${csp}`);
}

// Permissions Chrome knows (an unknown one is a warning on load and a store rejection).
const KNOWN = new Set([
  'activeTab', 'alarms', 'bookmarks', 'browsingData', 'clipboardRead', 'clipboardWrite',
  'contextMenus', 'cookies', 'debugger', 'declarativeNetRequest',
  'declarativeNetRequestWithHostAccess', 'declarativeNetRequestFeedback', 'downloads',
  'favicon', 'history', 'identity', 'idle', 'management', 'nativeMessaging', 'notifications',
  'offscreen', 'scripting', 'sidePanel', 'storage', 'tabGroups', 'tabs', 'unlimitedStorage',
  'webNavigation', 'webRequest',
]);
for (const permission of m.permissions || []) {
  if (!KNOWN.has(permission)) problem(`permission ${permission} is not one this check knows Chrome has`);
}

// Nothing hidden or left over from packing.
const walk = (rel) =>
  fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((entry) => {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    return entry.isDirectory() ? walk(child) : [child];
  });
for (const rel of walk('')) {
  if (rel.split('/').some((part) => part.startsWith('.') || part === '__MACOSX')) {
    problem(`${rel}: hidden or packing leftover`);
  }
}

if (problems.length) {
  console.error(`chrome_rules (${kind}) ${dir}:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`  ok  Chrome manifest rules (${kind}): ${dir}`);
