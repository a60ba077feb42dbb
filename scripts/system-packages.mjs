#!/usr/bin/env node
/**
 * The Debian packages the tests need besides Node and npm, which `npm test` checks first (the
 * README's test line and `.ci/run` call it that way). What is missing is installed with apt-get
 * when this process may (root, or passwordless `sudo -n`), and the services those packages start
 * on their default ports are stopped and disabled (the tests start their own, on free loopback
 * ports). Otherwise it prints the one command to run and exits 1.
 *
 *   node scripts/system-packages.mjs           check, install what is missing when it can
 *   node scripts/system-packages.mjs --check   check only: exit 1 and print the command if anything is missing
 *   node scripts/system-packages.mjs --list    print which test parts need which packages
 *
 * SYSTEM_PACKAGES_SIMULATE_BARE=1 behaves as on a machine with only Node and npm, where the user
 * is not root and has no passwordless sudo: every package counts as missing and nothing is
 * installed (how the README shows the line's output on such a machine).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Which test parts need which packages. `files`: any one of them present means installed.
 * `services`: what the package starts on install (Debian starts services), stopped and disabled.
 */
const PARTS = [
  {
    part: 'e2e: every Playwright spec (`npx playwright test`)',
    // The headless shell (playwright.config.ts says why it, and the desktop browser below).
    packages: [{ name: 'chromium-headless-shell', files: ['/usr/bin/chromium-headless-shell'], services: [] }],
  },
  {
    part: 'e2e: reader counters, also behind a caching proxy (e2e/reader-counters.spec.ts)',
    packages: [
      { name: 'chromium', files: ['/usr/bin/chromium', '/usr/bin/chromium-browser'], services: [] },
      { name: 'nginx', files: ['/usr/sbin/nginx'], services: ['nginx'] },
    ],
  },
  {
    part: 'deployment: deploy/ started for real (tests/deployment/)',
    packages: [
      {
        name: 'postgresql-15',
        files: ['/usr/lib/postgresql/15/bin/initdb'],
        also: ['/usr/lib/postgresql/15/bin/pg_ctl', '/usr/lib/postgresql/15/bin/psql'],
        services: ['postgresql'],
      },
      {
        name: 'varnish',
        files: ['/usr/sbin/varnishd'],
        also: ['/usr/bin/varnishadm'],
        services: ['varnish', 'varnishncsa'],
      },
      { name: 'pgbouncer', files: ['/usr/sbin/pgbouncer'], services: ['pgbouncer'] },
      { name: 'hitch', files: ['/usr/sbin/hitch'], services: ['hitch'] },
      // The test's self-signed certificate for hitch.
      { name: 'openssl', files: ['/usr/bin/openssl'], services: [] },
    ],
  },
];

const simulateBare = process.env.SYSTEM_PACKAGES_SIMULATE_BARE === '1';
const mode = process.argv.includes('--list') ? 'list' : process.argv.includes('--check') ? 'check' : 'install';

function installed(pkg) {
  if (simulateBare) return false;
  return pkg.files.some((f) => existsSync(f)) && (pkg.also ?? []).every((f) => existsSync(f));
}

function table() {
  return PARTS.map(({ part, packages }) => `  ${part}: ${packages.map((p) => p.name).join(', ')}`).join('\n');
}

if (mode === 'list') {
  console.log(`Debian packages the tests need:\n${table()}`);
  process.exit(0);
}

const missing = PARTS.flatMap(({ part, packages }) =>
  packages.filter((pkg) => !installed(pkg)).map((pkg) => ({ ...pkg, part })),
);
if (missing.length === 0) process.exit(0);

const names = [...new Set(missing.map((p) => p.name))];
const command = `sudo apt-get update && sudo apt-get install -y ${names.join(' ')}`;
const report = missing.map((p) => `  ${p.name} (${p.files[0]}): ${p.part}`).join('\n');

/** `[]` as root, `['sudo', '-n']` with passwordless sudo, undefined when neither. */
function privilege() {
  if (simulateBare) return undefined;
  if (typeof process.getuid === 'function' && process.getuid() === 0) return [];
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  return sudo.status === 0 ? ['sudo', '-n'] : undefined;
}

const prefix = mode === 'install' ? privilege() : undefined;
const hasApt = !simulateBare && existsSync('/usr/bin/apt-get');
if (prefix === undefined || !hasApt) {
  console.error(
    `The tests need Debian packages that are not installed:\n${report}\n\n` +
      (mode === 'check'
        ? 'Install them with:\n'
        : hasApt || simulateBare
          ? 'This user cannot install them (not root, no passwordless sudo). Run once:\n'
          : 'This machine has no apt-get; on Debian 12 run:\n') +
      `\n  ${command}\n\nthen the test line again. Which parts need which packages:\n${table()}`,
  );
  process.exit(1);
}

const run = (args) => {
  const [cmd, ...rest] = [...prefix, ...args];
  execFileSync(cmd, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
};
console.log(`Installing the Debian packages the tests need: ${names.join(' ')}\n${report}`);
run(['apt-get', 'update', '-qq']);
run(['apt-get', 'install', '-y', '-qq', ...names]);
// Debian starts a package's service on install; the tests start their own on free ports, and a
// packaged one left running would hold port 80, 5432, 6432 or 6081 for nothing.
for (const service of [...new Set(missing.flatMap((p) => p.services))]) {
  for (const args of [
    ['service', service, 'stop'],
    ['systemctl', 'disable', '--quiet', service],
  ]) {
    const [cmd, ...rest] = [...prefix, ...args];
    spawnSync(cmd, rest, { stdio: 'ignore' });
  }
}
const still = missing.filter((pkg) => !installed(pkg));
if (still.length > 0) {
  console.error(`Still missing after apt-get install: ${still.map((p) => `${p.name} (${p.files[0]})`).join(', ')}`);
  process.exit(1);
}
console.log(`Installed: ${names.join(' ')}`);
