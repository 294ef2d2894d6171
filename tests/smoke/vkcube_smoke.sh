#!/usr/bin/env bash
# vkcube smoke test for VK_LAYER_bindery.
#
# Runs vkcube twice for a fixed number of frames on a private Xvfb with the
# lavapipe (CPU) Vulkan driver:
#   run "with-layer":    VK_LAYER_bindery above VK_LAYER_KHRONOS_validation
#   run "without-layer": VK_LAYER_KHRONOS_validation only
# Both runs have synchronization validation enabled and log errors/warnings to
# a file; each run must exit 0 with an empty validation log.  The last frame
# (frame N) of each run is grabbed from the Xvfb framebuffer and the two
# images are compared pixel by pixel with ImageMagick.
#
# How the frame-N screenshot works (deterministic, no racing against vkcube):
#   * Xvfb keeps its framebuffer in an XWD file (-fbdir).
#   * Before vkcube starts, a tiny helper X client maps a full-screen window
#     whose background is None.  vkcube's window is created above it.
#   * When vkcube exits and destroys its window, the exposed area belongs to
#     the helper window; with background None the server does not repaint it,
#     so the last presented image (frame N) stays in the framebuffer file.
#     (Xvfb's own "-background none" does not do this: Xvfb falls back to a
#     black root, so the helper window is needed.)
#   * Between runs the helper is restarted, which repaints the screen black,
#     so a run that presents nothing cannot inherit the previous run's image.
#   * vkcube places its window at a fixed position; the window is located in
#     the screenshot by its non-black bounding box and must be exactly
#     WIDTHxHEIGHT.
#
# Usage:
#   tests/smoke/vkcube_smoke.sh --layer-path DIR --out DIR [options]
#   tests/smoke/vkcube_smoke.sh --implicit-data-dir DIR --out DIR [options]
#     (the second form enables Bindery as an installed implicit layer would be:
#     ENABLE_BINDERY=1, its implicit manifest found through XDG_DATA_DIRS; the
#     package smoke test points it into a scratch root holding the .deb's files)
# Run with --help for the option list.

set -euo pipefail

readonly LAYER_NAME="VK_LAYER_bindery"
readonly LAYER_MANIFEST="VkLayer_bindery.json"
readonly VALIDATION_LAYER="VK_LAYER_KHRONOS_validation"
readonly LVP_ICD_DEFAULT="/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
readonly WIDTH=256
readonly HEIGHT=256
readonly PRESENT_MODE=2 # VK_PRESENT_MODE_FIFO_KHR

SCRIPT_NAME="vkcube smoke"
START_SECONDS=$SECONDS

log() { printf '[vkcube-smoke] %s\n' "$*"; }
fail() {
    printf '[vkcube-smoke] ERROR: %s\n' "$*" >&2
    printf '%s: FAIL\n' "$SCRIPT_NAME" >&2
    exit 1
}

usage() {
    cat <<EOF
Usage: $0 --layer-path DIR --out DIR [options]

  --layer-path DIR        folder holding the explicit layer manifest
                          $LAYER_MANIFEST (used as VK_ADD_LAYER_PATH)
  --implicit-data-dir DIR instead of --layer-path: a data folder holding
                          vulkan/implicit_layer.d/$LAYER_MANIFEST (e.g. an
                          installed usr/share); the with-layer run enables it
                          with ENABLE_BINDERY=1 and XDG_DATA_DIRS=DIR:/usr/share
  --out DIR               output folder (created if missing): screenshots,
                          vkcube/loader logs, validation logs and settings
  --frames N              number of frames vkcube renders (default 60)
  --tolerance PERCENT     colour fuzz for the pixel comparison, passed to
                          'compare -fuzz PERCENT%' (default 1)
  --max-diff-pixels N     number of pixels allowed to differ beyond the
                          tolerance (default 0)
  --timeout SECONDS       time limit for each vkcube run (default 100)
  --icd FILE              Vulkan driver manifest (default $LVP_ICD_DEFAULT)
  --no-bindery            development mode: do not request $LAYER_NAME;
                          the "with-layer" run then uses validation only
                          (--layer-path becomes optional)
  -h, --help              this text

Outputs in --out: with-layer.png, without-layer.png, diff.png and the
folders with-layer/ and without-layer/ (vk_layer_settings.txt,
validation.log, vkcube.log), loader-probe.log.
EOF
}

# ---------------------------------------------------------------- arguments
layer_path=""
out_dir=""
frames=60
tolerance=1
max_diff_pixels=0
run_timeout=100
icd_file="$LVP_ICD_DEFAULT"
use_bindery=1
implicit_dir=""

need_value() { [[ $# -ge 2 && -n "$2" ]] || fail "option $1 needs a value"; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --layer-path) need_value "$@"; layer_path="$2"; shift 2 ;;
        --implicit-data-dir) need_value "$@"; implicit_dir="$2"; shift 2 ;;
        --out) need_value "$@"; out_dir="$2"; shift 2 ;;
        --frames) need_value "$@"; frames="$2"; shift 2 ;;
        --tolerance) need_value "$@"; tolerance="$2"; shift 2 ;;
        --max-diff-pixels) need_value "$@"; max_diff_pixels="$2"; shift 2 ;;
        --timeout) need_value "$@"; run_timeout="$2"; shift 2 ;;
        --icd) need_value "$@"; icd_file="$2"; shift 2 ;;
        --no-bindery) use_bindery=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) fail "unknown argument '$1' (see --help)" ;;
    esac
done

[[ -n "$out_dir" ]] || fail "--out DIR is required"
[[ "$frames" =~ ^[1-9][0-9]*$ ]] || fail "--frames must be a positive integer, got '$frames'"
[[ "$tolerance" =~ ^[0-9]+([.][0-9]+)?$ ]] || fail "--tolerance must be a number (percent), got '$tolerance'"
[[ "$max_diff_pixels" =~ ^[0-9]+$ ]] || fail "--max-diff-pixels must be a non-negative integer, got '$max_diff_pixels'"
[[ "$run_timeout" =~ ^[1-9][0-9]*$ ]] || fail "--timeout must be a positive integer, got '$run_timeout'"
[[ -f "$icd_file" ]] || fail "Vulkan driver manifest '$icd_file' not found (is mesa-vulkan-drivers installed?)"

if [[ -n "$implicit_dir" ]]; then
    [[ $use_bindery -eq 1 && -z "$layer_path" ]] || fail "--implicit-data-dir excludes --layer-path and --no-bindery"
    [[ -f "$implicit_dir/vulkan/implicit_layer.d/$LAYER_MANIFEST" ]] ||
        fail "--implicit-data-dir: no vulkan/implicit_layer.d/$LAYER_MANIFEST under '$implicit_dir'"
    implicit_dir="$(cd "$implicit_dir" && pwd)"
elif [[ $use_bindery -eq 1 ]]; then
    [[ -n "$layer_path" ]] || fail "--layer-path DIR is required (or use --no-bindery)"
    [[ -d "$layer_path" ]] || fail "--layer-path '$layer_path' is not a directory"
    layer_path="$(cd "$layer_path" && pwd)"
    [[ -f "$layer_path/$LAYER_MANIFEST" ]] ||
        fail "$LAYER_NAME requested but $layer_path/$LAYER_MANIFEST does not exist (layer not built?)"
fi

for tool in Xvfb vkcube vulkaninfo convert compare python3 timeout; do
    command -v "$tool" >/dev/null 2>&1 || fail "required tool '$tool' not found in PATH"
done

mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
icd_file="$(cd "$(dirname "$icd_file")" && pwd)/$(basename "$icd_file")"

# Remove results of a previous invocation so nothing stale is looked at.
rm -rf "$out_dir/with-layer" "$out_dir/without-layer"
rm -f "$out_dir/with-layer.png" "$out_dir/without-layer.png" "$out_dir/diff.png" \
      "$out_dir/loader-probe.log"

# ------------------------------------------------------------- environment
# Start from a clean Vulkan environment: anything VK_* inherited from the
# caller (extra layers, layer paths, validation overrides) would make the two
# runs differ in ways this test does not control.
dropped=()
while IFS= read -r var; do
    dropped+=("$var")
    unset "$var"
done < <(compgen -e | grep '^VK_' || true)
[[ ${#dropped[@]} -eq 0 ]] || log "ignoring inherited environment: ${dropped[*]}"
unset WAYLAND_DISPLAY DISPLAY

export VK_ICD_FILENAMES="$icd_file" # loaders before 1.3.207
export VK_DRIVER_FILES="$icd_file"
# No implicit layers (e.g. VK_LAYER_MESA_device_select, overlays installed on
# the machine): the chain is exactly app -> [bindery ->] validation -> driver.
export VK_LOADER_LAYERS_DISABLE='~implicit~'

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/vkcube-smoke.XXXXXX")"
export XDG_RUNTIME_DIR="$work_dir/xdg-runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"
fb_dir="$work_dir/fb"
mkdir "$fb_dir"

xvfb_pid=""
underlay_pid=""
vkcube_pid=""

source "$(dirname "${BASH_SOURCE[0]}")/lib/vkcube_common.sh"


stop_everything_on_exit

# --------------------------------------------------------------------- Xvfb
# Screen big enough for vkcube's window, which it places at (100,100).
screen_w=$((WIDTH + 200))
screen_h=$((HEIGHT + 200))


# ---------------------------------------------------------------- settings
write_settings() {
    local dir="$1"
    cat >"$dir/vk_layer_settings.txt" <<EOF
# Written by tests/smoke/vkcube_smoke.sh; read through VK_LAYER_SETTINGS_PATH.
khronos_validation.enables = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
khronos_validation.report_flags = error,warn
khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG
khronos_validation.log_filename = $dir/validation.log
bindery.log_level = info
EOF
}

# --------------------------------------------------------------- the runs
# Decide the VK_INSTANCE_LAYERS spelling that puts bindery closest to the
# application (validation below it).  Do not assume the list order is
# honoured: the loader in Debian 12 (1.3.239) ignores it and stacks the
# layers in the order their manifests are found (VK_ADD_LAYER_PATH folders
# first, so bindery lands on top either way); later loaders put the first
# listed layer closest to the application.  So ask the loader, with
# VK_LOADER_DEBUG=layer, and check the chain again in the real run.
instance_layers_with=""
probe_loader_order() {
    local probe_log="$out_dir/loader-probe.log" order chain ib iv
    for order in "$LAYER_NAME:$VALIDATION_LAYER" "$VALIDATION_LAYER:$LAYER_NAME"; do
        {
            echo "### VK_INSTANCE_LAYERS=$order"
            VK_ADD_LAYER_PATH="$layer_path" VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS="$order" \
                timeout --kill-after=10 30 vulkaninfo --summary 2>&1 || echo "### vulkaninfo exit status $?"
        } >"$probe_log.part" 2>&1
        cat "$probe_log.part" >>"$probe_log"
        chain="$(layer_chain vkCreateInstance "$probe_log.part")"
        ib="$(chain_index "$chain" "$LAYER_NAME")"
        iv="$(chain_index "$chain" "$VALIDATION_LAYER")"
        if [[ $ib -lt 0 ]]; then
            grep -i -E 'bindery|error' "$probe_log.part" | grep -v -E '^LAYER: +/' | head -n 20 >&2 || true
            rm -f "$probe_log.part"
            fail "$LAYER_NAME was requested but the Vulkan loader did not load it from $layer_path (see $probe_log)"
        fi
        [[ $iv -ge 0 ]] || { rm -f "$probe_log.part"; fail "$VALIDATION_LAYER not loaded (is vulkan-validationlayers installed?); see $probe_log"; }
        rm -f "$probe_log.part"
        if [[ $ib -lt $iv ]]; then
            instance_layers_with="$order"
            log "loader order check: VK_INSTANCE_LAYERS=$order gives chain app -> $(arrows "$chain") -> driver"
            return 0
        fi
        log "loader order check: VK_INSTANCE_LAYERS=$order puts $VALIDATION_LAYER above $LAYER_NAME, trying the other order"
    done
    fail "could not get $LAYER_NAME above $VALIDATION_LAYER in the layer chain (see $probe_log)"
}


# run_vkcube NAME INSTANCE_LAYERS ADD_LAYER_PATH
run_vkcube() {
    local name="$1" layers="$2" add_path="$3"
    local dir="$out_dir/$name" vklog rc=0 chain ib iv
    mkdir -p "$dir"
    vklog="$dir/vkcube.log"
    write_settings "$dir"

    start_underlay
    # The helper window starts black; make sure the screen really is before
    # vkcube runs, so a run that presents nothing cannot pass.
    [[ "$(convert "xwd:$(framebuffer)" -format '%[max]' info:)" == "0" ]] ||
        fail "$name: framebuffer not black before the run"

    log "$name: VK_INSTANCE_LAYERS=$layers vkcube --c $frames (${WIDTH}x${HEIGHT}, FIFO)"
    local t0=$SECONDS
    (
        [[ -z "$add_path" ]] || export VK_ADD_LAYER_PATH="$add_path"
        if [[ "$name" == with-layer && -n "$implicit_dir" ]]; then
            # As installed: the loader finds the implicit manifest and ENABLE_BINDERY
            # turns it on (other implicit layers stay as the machine has them).
            unset VK_LOADER_LAYERS_DISABLE
            export XDG_DATA_DIRS="$implicit_dir:/usr/share" ENABLE_BINDERY=1
        fi
        export VK_INSTANCE_LAYERS="$layers"
        export VK_LAYER_SETTINGS_PATH="$dir/vk_layer_settings.txt"
        export VK_LOADER_DEBUG=layer
        exec "${pdeath[@]}" timeout --kill-after=10 "$run_timeout" vkcube --c "$frames" --suppress_popups \
            --width "$WIDTH" --height "$HEIGHT" --present_mode "$PRESENT_MODE"
    ) >"$vklog" 2>&1 &
    # wait (rather than a foreground child) keeps the INT/TERM traps responsive
    vkcube_pid=$!
    wait "$vkcube_pid" || rc=$?
    vkcube_pid=""
    log "$name: vkcube exited with status $rc after $((SECONDS - t0))s"
    if [[ $rc -ne 0 ]]; then
        echo "----- last lines of $vklog -----" >&2
        grep -v -E '^LAYER: {10,}/' "$vklog" | tail -n 60 >&2 || true
        echo "----- end -----" >&2
        fail "$name: vkcube $(describe_exit "$rc" "$run_timeout")"
    fi

    # Layer chain actually used (instance and device level).
    chain="$(layer_chain vkCreateInstance "$vklog")"
    log "$name: instance chain: app -> $(arrows "$chain") -> driver"
    iv="$(chain_index "$chain" "$VALIDATION_LAYER")"
    [[ $iv -ge 0 ]] || fail "$name: $VALIDATION_LAYER missing from the instance layer chain"
    if [[ "$layers" == *"$LAYER_NAME"* || ( "$name" == with-layer && -n "$implicit_dir" ) ]]; then
        ib="$(chain_index "$chain" "$LAYER_NAME")"
        [[ $ib -ge 0 ]] || fail "$name: $LAYER_NAME requested but missing from the instance layer chain"
        [[ $ib -lt $iv ]] || fail "$name: $LAYER_NAME is not above $VALIDATION_LAYER in the instance chain"
        chain="$(layer_chain vkCreateDevice "$vklog")"
        log "$name: device chain:   app -> $(arrows "$chain") -> device"
        ib="$(chain_index "$chain" "$LAYER_NAME")"
        iv="$(chain_index "$chain" "$VALIDATION_LAYER")"
        if [[ $ib -ge 0 && $iv -ge 0 && $ib -gt $iv ]]; then
            fail "$name: $LAYER_NAME is not above $VALIDATION_LAYER in the device chain"
        fi
    fi

    check_validation_log "$name" "$dir/validation.log"
    log "$name: validation log empty (sync validation on, report_flags=error,warn)"
    # Show what the layer itself said (bindery.log_level = info).
    grep -i '^bindery' "$vklog" | head -n 20 | sed "s/^/[vkcube-smoke]   /" || true

    # Grab frame N from the framebuffer file and cut out vkcube's window.
    local shot="$work_dir/$name.xwd" bbox colors
    cp "$(framebuffer)" "$shot"
    stop_underlay # repaints the screen black for the next run
    bbox="$(convert "xwd:$shot" -format '%@' info: 2>/dev/null || true)"
    [[ "$bbox" =~ ^${WIDTH}x${HEIGHT}\+[0-9]+\+[0-9]+$ ]] ||
        fail "$name: vkcube window (${WIDTH}x${HEIGHT}) not found in the framebuffer (non-black area: '${bbox:-none}')"
    convert "xwd:$shot" -crop "$bbox" +repage -strip "$out_dir/$name.png"
    colors="$(convert "$out_dir/$name.png" -format '%k' info:)"
    [[ $colors -ge 16 ]] || fail "$name: screenshot has only $colors colours, no cube rendered?"
    log "$name: frame $frames captured at $bbox ($colors colours) -> $out_dir/$name.png"
}

log "out dir: $out_dir"
log "driver: $icd_file"
start_xvfb
log "Xvfb on display $DISPLAY (${screen_w}x${screen_h}x24, framebuffer in $fb_dir)"

if [[ -n "$implicit_dir" ]]; then
    log "implicit layer from $implicit_dir/vulkan/implicit_layer.d (ENABLE_BINDERY=1)"
    run_vkcube with-layer "$VALIDATION_LAYER" ""
    # The loader must have loaded the library that manifest names (inside the same
    # prefix: DIR is <prefix>/share), not another copy.
    prefix="$(dirname "$implicit_dir")"
    loaded="$(grep -o -E '[^ "(]*/libVkLayer_bindery\.so' "$out_dir/with-layer/vkcube.log" | sort -u || true)"
    [[ -n "$loaded" ]] || fail "with-layer: the loader log names no libVkLayer_bindery.so"
    while IFS= read -r lib; do
        [[ "$(readlink -f "$lib")" == "$(readlink -f "$prefix")"/* ]] ||
            fail "with-layer: the loader used $lib, outside $prefix"
    done <<<"$loaded"
    log "with-layer: library loaded from $(head -n1 <<<"$loaded")"
elif [[ $use_bindery -eq 1 ]]; then
    log "layer path: $layer_path"
    probe_loader_order
    run_vkcube with-layer "$instance_layers_with" "$layer_path"
else
    log "--no-bindery: $LAYER_NAME is NOT requested; both runs use $VALIDATION_LAYER only"
    run_vkcube with-layer "$VALIDATION_LAYER" ""
fi
run_vkcube without-layer "$VALIDATION_LAYER" ""

# --------------------------------------------------------------- compare
compare_rc=0
diff_pixels="$(compare -metric AE -fuzz "${tolerance}%" \
    "$out_dir/with-layer.png" "$out_dir/without-layer.png" "$out_dir/diff.png" 2>&1)" || compare_rc=$?
[[ $compare_rc -le 1 ]] || fail "compare failed: $diff_pixels"
diff_pixels="$(awk '{ printf "%d", $1 + 0.5 }' <<<"$diff_pixels")"
exact_pixels="$(compare -metric AE "$out_dir/with-layer.png" "$out_dir/without-layer.png" null: 2>&1 || true)"
exact_pixels="$(awk '{ printf "%d", $1 + 0.5 }' <<<"$exact_pixels")"
log "compare: $diff_pixels pixel(s) differ beyond ${tolerance}% fuzz ($exact_pixels differ at all); diff image $out_dir/diff.png"

elapsed=$((SECONDS - START_SECONDS))
if [[ $diff_pixels -gt $max_diff_pixels ]]; then
    fail "frame $frames differs between the runs: $diff_pixels pixel(s) beyond ${tolerance}% fuzz (allowed $max_diff_pixels); see $out_dir/diff.png"
fi
mode=""
[[ $use_bindery -eq 1 ]] || mode=", no-bindery mode"
log "total time ${elapsed}s"
echo "$SCRIPT_NAME: PASS (frames=$frames, differing pixels=$diff_pixels$mode)"
