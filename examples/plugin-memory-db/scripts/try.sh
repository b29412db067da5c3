#!/usr/bin/env bash
# Tries this example as a community author and a user would, outside the km workspace:
#  1. packs @km/core (with @km/wire and @km/embedded-engine, its dependencies) and @km/conformance from this checkout (build it first: pnpm build) into .packs/,
#  2. installs the example with npm from those tarballs, builds it (tsc), runs its conformance suite,
#  3. starts `km serve --plugin <this folder>` from the checkout's built CLI with KM_MEMORY_DB=jsonfile,
#     uploads this README, searches it, and prints what happened.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/../.." && pwd)
cli="$repo/packages/cli/dist/bin.js"
[ -f "$cli" ] || { echo "build the checkout first (pnpm build): $cli is missing" >&2; exit 1; }

step() { printf '\n== %s\n' "$*"; }

step "pack @km/wire, @km/embedded-engine, @km/core and @km/conformance"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo/packages/wire" && pnpm pack --pack-destination "$tmp" >/dev/null)
(cd "$repo/packages/embedded-engine" && pnpm pack --pack-destination "$tmp" >/dev/null)
(cd "$repo/packages/core" && pnpm pack --pack-destination "$tmp" >/dev/null)
(cd "$repo/packages/conformance" && pnpm pack --pack-destination "$tmp" >/dev/null)
rm -rf "$here/.packs" && mkdir -p "$here/.packs"
mv "$tmp"/km-wire-*.tgz "$here/.packs/km-wire.tgz"
mv "$tmp"/km-embedded-engine-*.tgz "$here/.packs/km-embedded-engine.tgz"
mv "$tmp"/km-core-*.tgz "$here/.packs/km-core.tgz"
mv "$tmp"/km-conformance-*.tgz "$here/.packs/km-conformance.tgz"
ls -l "$here/.packs" | tail -n +2

cd "$here"
step "npm install (outside the pnpm workspace)"
rm -rf node_modules package-lock.json dist
npm install --no-audit --no-fund --loglevel=error
step "build (tsc)"
npx tsc -p tsconfig.json
ls dist
step "conformance suite (vitest)"
npx vitest run --reporter=dot 2>&1 | tail -n 6

step "km serve --plugin $here (KM_MEMORY_DB=jsonfile)"
data="$tmp/data"
mkdir -p "$data"
KM_MEMORY_DB=jsonfile KM_JSONFILE_DIR="$data/jsonfile" KM_EMBEDDINGS=hashing KM_LOG_LEVEL=warn \
  node "$cli" serve --plugin "$here" --port 0 --data-dir "$data/km" >"$tmp/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
url=""
for _ in $(seq 1 300); do
  url=$(grep -o 'listening on http://[^ ]*' "$tmp/serve.log" | head -1 | cut -d' ' -f3 || true)
  [ -n "$url" ] && break
  kill -0 $pid 2>/dev/null || { cat "$tmp/serve.log"; exit 1; }
  sleep 0.2
done
[ -n "$url" ] || { echo "km serve did not start:" >&2; cat "$tmp/serve.log" >&2; exit 1; }
cat "$tmp/serve.log"

step "upload README.md"
curl -sS -F index=plugins -F documentId=readme -F "file1=@README.md;type=text/markdown" "$url/upload"
echo
# Up to 3 minutes: the local embedding and the file queue are slow on a busy machine.
for _ in $(seq 1 900); do
  status=$(curl -sS "$url/upload-status?index=plugins&documentId=readme")
  echo "$status" | grep -q '"completed":true' && break
  sleep 0.2
done
echo "$status" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(`completed: ${j.completed}, steps: ${j.completed_steps.join(", ")}`);if(!j.completed){console.error(j.error??"not completed within 3 minutes");process.exit(1)}})'

step "search: how is the plugin found?"
curl -sS -H 'content-type: application/json' -d '{"index":"plugins","query":"how is the plugin found? package name or path","limit":2}' "$url/search" |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);for(const r of j.results)for(const p of r.partitions)console.log(`[${p.relevance.toFixed(3)}] ${r.documentId}: ${p.text.slice(0,160).replace(/\s+/g," ")}...`)})'

step "what the jsonfile memory DB wrote"
ls -l "$data/jsonfile"
node -e 'const f=require("fs");for(const n of f.readdirSync(process.argv[1])){const j=JSON.parse(f.readFileSync(process.argv[1]+"/"+n,"utf8"));console.log(`${n}: vector size ${j.vectorSize}, ${Object.keys(j.records).length} records`)}' "$data/jsonfile"
kill $pid
wait $pid 2>/dev/null || true
step "done"
