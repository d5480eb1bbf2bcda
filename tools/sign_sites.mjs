// Signs a site list for subscribers (`./build.sh sign-sites LIST KEYFILE [OUT]`): the list's
// canonical bytes — every key sorted, no whitespace, without `signature` (the core's
// `domain::site_list::canonical`) — signed with Ed25519, and the signature added as base64.
// KEYFILE is a PKCS#8 PEM private key kept outside the repository; when it does not exist a
// new one is made there (mode 600). The verifying key it prints is the build setting
// MCP_BRIDGE_SITE_LIST_KEY. Also imported by the tests, to sign with a key of their run.
import crypto from 'node:crypto';
import fs from 'node:fs';

/** The JSON text of `value` with sorted keys and no whitespace. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The base64 of a key's 32 raw public bytes (what the extension verifies with). */
export function publicKeyB64(privateKey) {
  const der = crypto.createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32).toString('base64');
}

/** `list` (an object with `version` and `sites`) with its signature. */
export function sign(list, privateKey) {
  const { signature: _, ...rest } = list;
  const sig = crypto.sign(null, Buffer.from(canonical(rest)), privateKey);
  return { ...rest, signature: sig.toString('base64') };
}

function main([listPath, keyPath, outPath]) {
  if (!listPath || !keyPath) {
    console.error('usage: ./build.sh sign-sites LIST KEYFILE [OUT]');
    process.exit(2);
  }
  if (!fs.existsSync(keyPath)) {
    const { privateKey } = crypto.generateKeyPairSync('ed25519');
    fs.writeFileSync(keyPath, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    console.error(`made a new signing key: ${keyPath} (keep it out of the repository)`);
  }
  const key = crypto.createPrivateKey(fs.readFileSync(keyPath));
  let list;
  try {
    list = JSON.parse(fs.readFileSync(listPath, 'utf8'));
  } catch (e) {
    console.error(`${listPath}: ${e.message}`);
    process.exit(1);
  }
  if (!Number.isSafeInteger(list?.version) || list.version < 1 || !Array.isArray(list.sites)) {
    console.error(`${listPath}: a site list is {"version": <whole number ≥ 1>, "sites": [...]}`);
    process.exit(1);
  }
  const out = outPath || listPath.replace(/(\.json)?$/, '.signed.json');
  fs.writeFileSync(out, `${JSON.stringify(sign(list, key), null, 2)}\n`);
  console.log(`signed: ${out} (version ${list.version}, ${list.sites.length} sites)`);
  console.log(`verifying key (MCP_BRIDGE_SITE_LIST_KEY): ${publicKeyB64(key)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
