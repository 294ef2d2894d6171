#!/usr/bin/env bash
# vkcube with indirect bindings forced and uniform-buffer conversion on (docs/indirect-bindings.md):
# tests/smoke/vkcube_smoke.sh compares the frame with the one rendered without Bindery
# (validation with synchronization validation below the layer in both runs); this wrapper
# also requires the layer's summary to show that vkcube's pipeline was rewritten and its
# sets converted, so the comparison cannot pass with the capability doing nothing.
# Usage: vkcube_bindings_smoke.sh SMOKE_SCRIPT LAYER_PATH OUT_DIR
set -euo pipefail
smoke=$1 layer_path=$2 out=$3
mkdir -p "$out"
log="$out/bindery.log"
rm -f "$log"
BINDERY_INDIRECT_BINDINGS=force BINDERY_BINDINGS_UBO=on BINDERY_LOG_LEVEL=info BINDERY_LOG_FILE="$log" \
  "$smoke" --layer-path "$layer_path" --out "$out" --frames 30
if ! grep -Eq 'pipelines rewritten [1-9][0-9]*, fallen back 0, descriptor sets converted [1-9]' "$log"; then
  echo "vkcube bindings smoke: FAIL: no summary showing a rewritten pipeline and converted sets:" >&2
  grep summary "$log" >&2 || true
  exit 1
fi
grep summary "$log" | tail -1
echo "vkcube bindings smoke: PASS"
