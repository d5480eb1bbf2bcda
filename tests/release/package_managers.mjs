// The Homebrew formula and the Scoop manifest of a release, written from its SHA256SUMS, and
// their check against the artifacts themselves.
//
//   node tests/release/package_managers.mjs write DIR OWNER/REPO VERSION
//       DIR/mcp-bridge.rb (Homebrew: macOS arm64 and x86_64, Linux x86_64) and
//       DIR/mcp-bridge.json (Scoop: Windows x86_64), downloading from the GitHub release
//       of the tag vVERSION.
//   node tests/release/package_managers.mjs check DIR VERSION
//       every url in both names a file in DIR whose SHA-256, computed now, is the one next to
//       it, every binary of the release is in one of them, and both say VERSION.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const DESCRIPTION =
  'Local bridge between the MCP Bridge browser extension and your MCP servers';

/** The binaries each package manager installs: [file in the release, platform]. */
const HOMEBREW = [
  ['mcp-bridge-macos-aarch64', 'macos', 'arm'],
  ['mcp-bridge-macos-x86_64', 'macos', 'intel'],
  ['mcp-bridge-linux-x86_64', 'linux', 'intel'],
];
const SCOOP = 'mcp-bridge-windows-x86_64.exe';

function die(message) {
  console.error(`package_managers: ${message}`);
  process.exit(1);
}

function sums(dir) {
  const file = path.join(dir, 'SHA256SUMS');
  if (!fs.existsSync(file)) die(`no ${file}`);
  const map = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (match) map.set(match[2], match[1]);
  }
  return map;
}

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function write(dir, repo, version) {
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo || '')) die(`'${repo}' is not OWNER/REPO`);
  if (!/^\d+\.\d+\.\d+/.test(version || '')) die(`'${version}' is not a version`);
  const checksums = sums(dir);
  const base = `https://github.com/${repo}/releases/download/v${version}`;
  const hash = (name) => checksums.get(name) || die(`${name} is not in SHA256SUMS`);

  const blocks = ['macos', 'linux'].map((os) => {
    const arches = HOMEBREW.filter(([, o]) => o === os).map(
      ([name, , arch]) => `    on_${arch} do
      url "${base}/${name}"
      sha256 "${hash(name)}"
    end`,
    );
    return `  on_${os} do\n${arches.join('\n')}\n  end`;
  });
  const formula = `# Written by ./build.sh release from SHA256SUMS; do not edit.
class McpBridge < Formula
  desc "${DESCRIPTION}"
  homepage "https://github.com/${repo}"
  version "${version}"
  license "MIT"

${blocks.join('\n\n')}

  def install
    bin.install Dir["mcp-bridge-*"].first => "mcp-bridge"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/mcp-bridge --version")
  end
end
`;
  fs.writeFileSync(path.join(dir, 'mcp-bridge.rb'), formula);

  const scoop = {
    version,
    description: DESCRIPTION,
    homepage: `https://github.com/${repo}`,
    license: 'MIT',
    architecture: {
      '64bit': { url: `${base}/${SCOOP}#/mcp-bridge.exe`, hash: hash(SCOOP) },
    },
    bin: 'mcp-bridge.exe',
    checkver: 'github',
    autoupdate: {
      architecture: {
        '64bit': {
          url: `https://github.com/${repo}/releases/download/v$version/${SCOOP}#/mcp-bridge.exe`,
        },
      },
    },
  };
  fs.writeFileSync(path.join(dir, 'mcp-bridge.json'), JSON.stringify(scoop, null, 2) + '\n');
  console.log(`package_managers: wrote ${dir}/mcp-bridge.rb and ${dir}/mcp-bridge.json`);
}

function check(dir, version) {
  const pairs = []; // [where, url, sha256]
  const formula = fs.readFileSync(path.join(dir, 'mcp-bridge.rb'), 'utf8');
  const re = /url "([^"]+)"\s*\n\s*sha256 "([0-9a-f]{64})"/g;
  for (let m; (m = re.exec(formula)); ) pairs.push(['mcp-bridge.rb', m[1], m[2]]);
  const versionLine = /^\s*version "([^"]+)"$/m.exec(formula);
  if (versionLine?.[1] !== version) die(`mcp-bridge.rb says version ${versionLine?.[1]}, not ${version}`);
  if (pairs.length !== HOMEBREW.length) die(`mcp-bridge.rb has ${pairs.length} url/sha256 pairs, not ${HOMEBREW.length}`);

  const scoop = JSON.parse(fs.readFileSync(path.join(dir, 'mcp-bridge.json'), 'utf8'));
  if (scoop.version !== version) die(`mcp-bridge.json says version ${scoop.version}, not ${version}`);
  for (const [arch, entry] of Object.entries(scoop.architecture)) {
    pairs.push([`mcp-bridge.json ${arch}`, entry.url, entry.hash]);
  }

  const wanted = new Set([...HOMEBREW.map(([name]) => name), SCOOP]);
  for (const [where, url, hash] of pairs) {
    const name = decodeURIComponent(new URL(url).pathname.split('/').pop());
    if (!new URL(url).pathname.includes(`/download/v${version}/`)) die(`${where}: ${url} is not the v${version} release`);
    const file = path.join(dir, name);
    if (!fs.existsSync(file)) die(`${where}: ${url} names ${name}, which is not in ${dir}`);
    const actual = sha256(file);
    if (actual !== hash) die(`${where}: ${name} has SHA-256 ${actual}, the file says ${hash}`);
    wanted.delete(name);
    console.log(`  ok  ${where}: ${name} ${hash}`);
  }
  if (wanted.size) die(`not offered by either: ${[...wanted].join(', ')}`);
}

const [command, dir, ...rest] = process.argv.slice(2);
if (command === 'write') write(dir, rest[0], rest[1]);
else if (command === 'check') check(dir, rest[0]);
else die('usage: package_managers.mjs write DIR OWNER/REPO VERSION | check DIR VERSION');
