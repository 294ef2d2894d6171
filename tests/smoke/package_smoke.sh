#!/usr/bin/env bash
# The Debian package, installed as a user would, but into a scratch root (never /):
#   1. cpack builds the .deb from the build tree (the same rules scripts/package uses);
#   2. dpkg -x unpacks it into <out>/root; the package must hold the layer library, both
#      manifests, the public header and bindery-spirv, all under usr/;
#   3. each manifest's library_path must resolve, from where the manifest lies, to the
#      library inside the scratch root;
#   4. bindery-spirv from the scratch root inspects a shader;
#   5. vkcube runs through the installed implicit manifest (XDG_DATA_DIRS into the scratch
#      root, ENABLE_BINDERY=1, validation below), frame compared with a run without
#      Bindery (tests/smoke/vkcube_smoke.sh --implicit-data-dir).
#
# Usage: tests/smoke/package_smoke.sh --build-dir DIR --out DIR
set -euo pipefail

log() { printf '[package-smoke] %s\n' "$*"; }
fail() {
    printf '[package-smoke] ERROR: %s\n' "$*" >&2
    printf 'package smoke: FAIL\n' >&2
    exit 1
}

build_dir="" out_dir=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build-dir) build_dir="${2:-}"; shift 2 ;;
        --out) out_dir="${2:-}"; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) fail "unknown argument '$1' (see --help)" ;;
    esac
done
[[ -f "$build_dir/CPackConfig.cmake" ]] || fail "--build-dir: no CPackConfig.cmake in '$build_dir'"
[[ -n "$out_dir" ]] || fail "--out DIR is required"
for tool in cpack dpkg-deb python3 glslangValidator; do
    command -v "$tool" >/dev/null 2>&1 || fail "required tool '$tool' not found"
done
build_dir="$(cd "$build_dir" && pwd)"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
rm -rf "${out_dir:?}/deb" "${out_dir:?}/root"
mkdir -p "$out_dir/deb" "$out_dir/root"

log "cpack -G DEB from $build_dir"
(cd "$build_dir" && cpack -G DEB -B "$out_dir/deb" >"$out_dir/cpack.log" 2>&1) ||
    { tail -n 30 "$out_dir/cpack.log" >&2; fail "cpack failed (log: $out_dir/cpack.log)"; }
debs=("$out_dir"/deb/*.deb)
[[ ${#debs[@]} -eq 1 && -f "${debs[0]}" ]] || fail "expected one .deb in $out_dir/deb, found: ${debs[*]}"
deb="${debs[0]}"
log "package: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\):/  \1:/p'

root="$out_dir/root"
dpkg-deb -x "$deb" "$root"
dpkg-deb --contents "$deb" >"$out_dir/contents.txt"
for wanted in usr/share/vulkan/explicit_layer.d/VkLayer_bindery.json \
              usr/share/vulkan/implicit_layer.d/VkLayer_bindery.json \
              usr/include/vulkan/vk_bindery.h usr/bin/bindery-spirv; do
    [[ -f "$root/$wanted" ]] || fail "the package lacks /$wanted (contents: $out_dir/contents.txt)"
done
lib="$(cd "$root" && find usr -name libVkLayer_bindery.so -type f | head -n1)"
[[ -n "$lib" ]] || fail "the package lacks libVkLayer_bindery.so (contents: $out_dir/contents.txt)"
outside="$(cd "$root" && find . -mindepth 1 -maxdepth 1 ! -name usr)"
[[ -z "$outside" ]] || fail "the package installs outside /usr: $outside"
log "installs /$lib, both manifests, the header and bindery-spirv under /usr"

for kind in explicit implicit; do
    manifest="$root/usr/share/vulkan/${kind}_layer.d/VkLayer_bindery.json"
    resolved="$(python3 -c '
import json, os, sys
path = json.load(open(sys.argv[1]))["layer"]["library_path"]
if not os.path.isabs(path):
    path = os.path.join(os.path.dirname(sys.argv[1]), path)
print(os.path.realpath(path))' "$manifest")"
    [[ "$resolved" == "$(realpath "$root/$lib")" ]] ||
        fail "$kind manifest: library_path resolves to $resolved, not the installed $root/$lib"
done
grep -q '"ENABLE_BINDERY"' "$root/usr/share/vulkan/implicit_layer.d/VkLayer_bindery.json" ||
    fail "the implicit manifest has no ENABLE_BINDERY enable_environment"
log "both manifests' library_path resolve to the installed library"

shader="$(dirname "${BASH_SOURCE[0]}")/../shaders/scale_add.comp"
glslangValidator -V "$shader" -o "$out_dir/scale_add.spv" >/dev/null || fail "glslangValidator failed on $shader"
"$root/usr/bin/bindery-spirv" info "$out_dir/scale_add.spv" >"$out_dir/bindery-spirv-info.txt" 2>&1 ||
    { cat "$out_dir/bindery-spirv-info.txt" >&2; fail "the installed bindery-spirv does not run"; }
log "installed bindery-spirv inspects a shader: $(head -n1 "$out_dir/bindery-spirv-info.txt")"

"$(dirname "${BASH_SOURCE[0]}")/vkcube_smoke.sh" --implicit-data-dir "$root/usr/share" \
    --out "$out_dir/vkcube" --frames 30
echo "package smoke: PASS ($(basename "$deb"))"
