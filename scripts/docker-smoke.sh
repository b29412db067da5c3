#!/usr/bin/env bash
# Smoke test of a km service through its HTTP API: waits for /health, uploads a small text
# document (POST /upload, multipart with index and documentId), polls GET /upload-status until
# the pipeline completes, then asks (POST /ask) and checks the answer is non-empty and cites the
# document. Needs curl and node.
#
#   scripts/docker-smoke.sh --image km-service   # runs the image (docker run), tests it, removes it
#   scripts/docker-smoke.sh http://127.0.0.1:9001  # an already running service (km serve, a container)
#
# Environment: KM_SMOKE_TIMEOUT (seconds for start-up and for ingestion, default 180),
# KM_SMOKE_API_KEY (sent in the Authorization header when the service wants a key),
# KM_SMOKE_PORT (host port for --image, default 9001).
set -euo pipefail

timeout_s="${KM_SMOKE_TIMEOUT:-180}"
image=""
base="http://127.0.0.1:9001"
if [ "${1:-}" = "--image" ]; then
  image="${2:?--image needs an image name}"
  base="http://127.0.0.1:${KM_SMOKE_PORT:-9001}"
elif [ -n "${1:-}" ]; then
  base="${1%/}"
fi

work="$(mktemp -d)"
container=""
cleanup() {
  local status=$?
  if [ -n "$container" ]; then
    if [ "$status" -ne 0 ]; then
      echo "--- container logs ---" >&2
      docker logs "$container" >&2 || true
    fi
    docker rm -f "$container" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

fail() {
  echo "smoke: FAILED: $*" >&2
  exit 1
}

auth=()
if [ -n "${KM_SMOKE_API_KEY:-}" ]; then auth=(-H "Authorization: ${KM_SMOKE_API_KEY}"); fi

# JSON field reader: json_get FILE EXPRESSION (a JavaScript expression over `j`).
json_get() { node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); const v = eval(process.argv[2]); process.stdout.write(v === undefined || v === null ? "" : String(v));' "$1" "$2"; }

if [ -n "$image" ]; then
  container="$(docker run -d -p "${KM_SMOKE_PORT:-9001}:9001" "$image")"
  echo "smoke: started container ${container:0:12} from $image"
fi

echo "smoke: waiting for $base/health (up to ${timeout_s}s)"
deadline=$((SECONDS + timeout_s))
until curl -fs -o /dev/null "$base/health"; do
  if [ -n "$container" ] && [ "$(docker inspect -f '{{.State.Running}}' "$container")" != "true" ]; then
    fail "the container exited"
  fi
  [ "$SECONDS" -lt "$deadline" ] || fail "no healthy answer from $base/health within ${timeout_s}s"
  sleep 1
done
echo "smoke: healthy"

index="smoke"
document="smoke-$(date +%s)-$$"
cat >"$work/lighthouse.txt" <<'TEXT'
The Skerry Point lighthouse was built in 1874 on a granite ledge off the northern cape.
Its lamp is 38 metres above the sea and can be seen from 22 nautical miles away.
Keepers lived in the lighthouse until 1987, when the light was automated.
The tower is painted with red and white horizontal bands so ships can recognise it by day.
TEXT

code="$(curl -sS "${auth[@]}" -o "$work/upload.json" -w '%{http_code}' \
  -F "index=$index" -F "documentId=$document" -F "tags=source:smoke" \
  -F "file=@$work/lighthouse.txt;type=text/plain" "$base/upload")"
[ "$code" = "202" ] || [ "$code" = "200" ] || fail "POST /upload answered $code: $(cat "$work/upload.json")"
echo "smoke: uploaded $index/$document ($code)"

deadline=$((SECONDS + timeout_s))
while :; do
  code="$(curl -sS "${auth[@]}" -o "$work/status.json" -w '%{http_code}' "$base/upload-status?index=$index&documentId=$document")"
  if [ "$code" = "200" ]; then
    [ "$(json_get "$work/status.json" 'j.failed')" != "true" ] || fail "ingestion failed: $(cat "$work/status.json")"
    [ "$(json_get "$work/status.json" 'j.completed')" = "true" ] && break
  elif [ "$code" != "404" ]; then
    fail "GET /upload-status answered $code: $(cat "$work/status.json")"
  fi
  [ "$SECONDS" -lt "$deadline" ] || fail "ingestion not completed within ${timeout_s}s: $(cat "$work/status.json")"
  sleep 1
done
echo "smoke: ingestion completed"

question='How far away can the Skerry Point lighthouse be seen?'
code="$(curl -sS "${auth[@]}" -o "$work/answer.json" -w '%{http_code}' -H 'Content-Type: application/json' \
  -d "{\"question\":\"$question\",\"index\":\"$index\"}" "$base/ask")"
[ "$code" = "200" ] || fail "POST /ask answered $code: $(cat "$work/answer.json")"
text="$(json_get "$work/answer.json" 'j.text')"
[ -n "${text//[[:space:]]/}" ] || fail "empty answer: $(cat "$work/answer.json")"
[ "$(json_get "$work/answer.json" 'j.noResult')" != "true" ] || fail "no result: $(cat "$work/answer.json")"
cited="$(json_get "$work/answer.json" "(j.relevantSources ?? []).filter((s) => s.documentId === '$document').length")"
[ "${cited:-0}" -ge 1 ] || fail "the answer cites no source from $document: $(cat "$work/answer.json")"
echo "smoke: answer (${#text} characters) cites $document"
echo "smoke: OK"
