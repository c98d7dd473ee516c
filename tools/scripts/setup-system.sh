#!/usr/bin/env bash
# Installs the system packages that `npm run test:pg` and `npm run test:e2e` need, and only the
# ones that are missing: pg_prove (a Perl client that runs the pgTAP suite as `supabase test db`
# does) with psql, which it runs for each file, and Debian's Chromium. The PostgreSQL server and
# pgTAP come from npm (the embedded binaries, @electric-sql/pglite-pgtap). `npm install && npm test`
# needs none of them.
set -euo pipefail

packages=(libtap-parser-sourcehandler-pgtap-perl postgresql-client-15 chromium)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup:system: everything is installed (${packages[*]})"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup:system: apt-get is not available here. Install these with your package manager:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  echo "(pg_prove, psql, and Chromium at /usr/bin/chromium)" >&2
  exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "setup:system: root is needed to install: ${missing[*]}" >&2
    echo "run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

echo "setup:system: installing ${missing[*]}"
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
