#!/usr/bin/env bash
# Real layer stacks (docs/layers-and-loader.md): vkcube on lavapipe under Xvfb with VK_LAYER_bindery next
# to layers users already run, validation (synchronization validation on) always below
# Bindery. Every run must exit 0 with an empty validation log and the layer chain the
# loader reports must be the one intended; frame N is compared with the same stack
# without Bindery.
#
#   overlays-reference  MangoHud + vkBasalt, no Bindery
#   bindery-below       MangoHud + vkBasalt above Bindery (Bindery explicit, VK_INSTANCE_LAYERS)
#   bindery-above       Bindery above MangoHud + vkBasalt (Bindery implicit, ENABLE_BINDERY=1)
#   gfxr-capture        Bindery above the gfxreconstruct capture layer; the capture is then
#                       replayed WITHOUT Bindery (gfxrecon-replay --screenshots) and the
#                       replayed frame N must equal the frame vkcube showed.
#
# How the order is controlled on Debian 12's loader (1.3.239): enabled implicit layers
# come first (closest to the application), in manifest discovery order
# ($XDG_DATA_HOME before /usr/share), then the explicit layers named in
# VK_INSTANCE_LAYERS, again in discovery order (VK_ADD_LAYER_PATH folders first), not in
# the order named. So Bindery explicit lands below implicit overlays; Bindery implicit
# from $XDG_DATA_HOME lands above them; explicit validation is always last.
#
# MangoHud draws changing numbers (fps, frame time); its config here keeps only static
# text, so whole frames can be compared exactly.
#
# Usage: tests/smoke/layer_stacks_smoke.sh --layer-path DIR --implicit-xdg DIR --out DIR [--frames N]
set -euo pipefail

readonly LAYER_NAME="VK_LAYER_bindery"
readonly VALIDATION_LAYER="VK_LAYER_KHRONOS_validation"
readonly MANGOHUD_LAYER="VK_LAYER_MANGOHUD_overlay"
readonly VKBASALT_LAYER="VK_LAYER_VKBASALT_post_processing"
readonly GFXR_LAYER="VK_LAYER_LUNARG_gfxreconstruct"
readonly LVP_ICD="/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
readonly WIDTH=256
readonly HEIGHT=256
readonly PRESENT_MODE=2 # FIFO

SCRIPT_NAME="layer stacks smoke"
log() { printf '[layer-stacks] %s\n' "$*"; }
fail() {
    printf '[layer-stacks] ERROR: %s\n' "$*" >&2
    printf '%s: FAIL\n' "$SCRIPT_NAME" >&2
    exit 1
}

layer_path="" implicit_xdg="" out_dir="" frames=60 run_timeout=100
while [[ $# -gt 0 ]]; do
    case "$1" in
        --layer-path) layer_path="${2:-}"; shift 2 ;;
        --implicit-xdg) implicit_xdg="${2:-}"; shift 2 ;;
        --out) out_dir="${2:-}"; shift 2 ;;
        --frames) frames="${2:-}"; shift 2 ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        *) fail "unknown argument '$1' (see --help)" ;;
    esac
done
[[ -n "$out_dir" ]] || fail "--out DIR is required"
[[ "$frames" =~ ^[1-9][0-9]*$ ]] || fail "--frames must be a positive integer, got '$frames'"
[[ -f "$layer_path/VkLayer_bindery.json" ]] || fail "--layer-path: no VkLayer_bindery.json in '$layer_path'"
[[ -f "$implicit_xdg/vulkan/implicit_layer.d/VkLayer_bindery.json" ]] ||
    fail "--implicit-xdg: no vulkan/implicit_layer.d/VkLayer_bindery.json under '$implicit_xdg'"
layer_path="$(cd "$layer_path" && pwd)"
implicit_xdg="$(cd "$implicit_xdg" && pwd)"
[[ -f "$LVP_ICD" ]] || fail "lavapipe ($LVP_ICD) missing: install mesa-vulkan-drivers"
# Missing tools are a failure, not a skip: scripts/test installs all of them.
for tool in Xvfb vkcube gfxrecon-replay convert compare python3 timeout; do
    command -v "$tool" >/dev/null 2>&1 || fail "required tool '$tool' not found (scripts/test installs it)"
done
for manifest in /usr/share/vulkan/implicit_layer.d/MangoHud.json /usr/share/vulkan/implicit_layer.d/vkBasalt.json \
                /usr/share/vulkan/explicit_layer.d/VkLayer_gfxreconstruct.json; do
    [[ -f "$manifest" ]] || fail "$manifest missing (packages mangohud, vkbasalt, gfxreconstruct)"
done
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
rm -rf "${out_dir:?}"/*

# A clean environment: nothing VK_* or layer-specific from the caller.
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(VK_|MANGOHUD|ENABLE_|DISABLE_|VKBASALT|GFXRECON)' || true)
unset WAYLAND_DISPLAY DISPLAY
export VK_ICD_FILENAMES="$LVP_ICD" VK_DRIVER_FILES="$LVP_ICD"

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/layer-stacks.XXXXXX")"
export XDG_RUNTIME_DIR="$work_dir/xdg-runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"
fb_dir="$work_dir/fb"
mkdir "$fb_dir"
# Private home and config folders: no user MangoHud/vkBasalt config, no user layers.
export HOME="$work_dir/home" XDG_CONFIG_HOME="$work_dir/home/.config" XDG_DATA_HOME="$work_dir/home/.local/share"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME"
xvfb_pid="" underlay_pid="" vkcube_pid=""
screen_w=$((WIDTH + 200))
screen_h=$((HEIGHT + 200))

source "$(dirname "${BASH_SOURCE[0]}")/lib/vkcube_common.sh"

stop_everything_on_exit

# vkBasalt: one deterministic effect (contrast-adaptive sharpening) on every frame.
cat >"$work_dir/vkBasalt.conf" <<EOF2
effects = cas
casSharpness = 0.4
toggleKey = Home
EOF2
readonly OVERLAY_ENV=(MANGOHUD=1 ENABLE_VKBASALT=1 "VKBASALT_CONFIG_FILE=$work_dir/vkBasalt.conf"
    "MANGOHUD_CONFIG=${MANGOHUD_STATIC_CONFIG:-fps=0,frame_timing=0,cpu_stats=0,gpu_stats=0,custom_text=Bindery stack,position=top-left}")

write_validation_settings() {
    local dir="$1"
    cat >"$dir/vk_layer_settings.txt" <<EOF2
khronos_validation.enables = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
khronos_validation.report_flags = error,warn
khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG
khronos_validation.log_filename = $dir/validation.log
bindery.log_level = info
EOF2
}

# run_stack NAME "EXPECTED CHAIN" ENV... : runs vkcube with ENV, checks exit status,
# validation log and that the instance and device chains are exactly EXPECTED CHAIN
# (layer names, application side first, VK_LAYER_MESA_device_select ignored), then
# cuts frame N out of the framebuffer into $out_dir/NAME.png.
run_stack() {
    local name="$1" expected="$2"
    shift 2
    local dir="$out_dir/$name" rc=0 chain which
    mkdir -p "$dir"
    write_validation_settings "$dir"
    start_underlay
    [[ "$(convert "xwd:$(framebuffer)" -format '%[max]' info:)" == "0" ]] || fail "$name: framebuffer not black before the run"
    log "$name: $* vkcube --c $frames"
    local t0=$SECONDS
    (
        export VK_LAYER_SETTINGS_PATH="$dir/vk_layer_settings.txt" VK_LOADER_DEBUG=layer
        for assignment in "$@"; do export "${assignment?}"; done
        exec "${pdeath[@]}" timeout --kill-after=10 "$run_timeout" vkcube --c "$frames" --suppress_popups \
            --width "$WIDTH" --height "$HEIGHT" --present_mode "$PRESENT_MODE"
    ) >"$dir/vkcube.log" 2>&1 &
    vkcube_pid=$!
    wait "$vkcube_pid" || rc=$?
    vkcube_pid=""
    if [[ $rc -ne 0 ]]; then
        grep -v -E '^LAYER: {10,}/' "$dir/vkcube.log" | tail -n 40 >&2 || true
        fail "$name: vkcube $(describe_exit "$rc" "$run_timeout") (log: $dir/vkcube.log)"
    fi
    for which in vkCreateInstance vkCreateDevice; do
        chain="$(layer_chain "$which" "$dir/vkcube.log" | grep -v '^VK_LAYER_MESA_device_select$' || true)"
        last_chain="$(arrows "$chain")"
        [[ "$expected" == "-" || "$last_chain" == "$expected" ]] ||
            fail "$name: $which chain is 'app -> $last_chain', expected 'app -> $expected'"
    done
    log "$name: exit 0 after $((SECONDS - t0))s; chain app -> $last_chain -> driver"
    check_validation "$name" "$dir/validation.log"

    local shot="$work_dir/$name.xwd"
    cp "$(framebuffer)" "$shot"
    stop_underlay
    convert "xwd:$shot" -crop "${WIDTH}x${HEIGHT}+100+100" +repage -strip "$out_dir/$name.png"
    [[ "$(convert "$out_dir/$name.png" -format '%k' info:)" -ge 16 ]] || fail "$name: no cube in the frame"
}

# MangoHud 0.6.8 itself trips synchronization validation once per frame: its overlay
# render pass loads the swapchain image after a layout-transition barrier that does not
# make the transition visible to the load (SYNC-HAZARD-READ-AFTER-WRITE at
# vkCmdBeginRenderPass). The reference stack without Bindery reports exactly these, so
# they are counted, not ignored: a stack with Bindery must report the same number as
# the reference and nothing else. Every other message fails the run.
readonly MANGOHUD_HAZARD='vkCmdBeginRenderPass: Hazard READ_AFTER_WRITE in subpass 0 for attachment 0 aspect color during load with loadOp VK_ATTACHMENT_LOAD_OP_LOAD'
reference_hazards=""
check_validation() {
    local name="$1" vlog="$2" total known
    [[ -f "$vlog" ]] || fail "$name: validation log $vlog was not created (settings file not picked up?)"
    total="$(grep -c -E '\((ERROR|WARN|PERF)[^)]*\)' "$vlog" || true)"
    known="$(grep -E '\((ERROR|WARN|PERF)[^)]*\)' "$vlog" | grep -c -F "$MANGOHUD_HAZARD" || true)"
    if [[ "$total" != "$known" ]]; then
        grep -E '\((ERROR|WARN|PERF)[^)]*\)' "$vlog" | grep -v -F "$MANGOHUD_HAZARD" | head -n 40 >&2
        fail "$name: validation reported $((total - known)) message(s) besides MangoHud's own hazard (log: $vlog)"
    fi
    if [[ "$name" == overlays-reference ]]; then
        reference_hazards="$known"
    elif [[ "$name" == bindery-* && "$known" != "$reference_hazards" ]]; then
        fail "$name: $known MangoHud render-pass hazards, the stack without Bindery has $reference_hazards"
    elif [[ "$name" != bindery-* && "$known" != 0 ]]; then
        fail "$name: $known render-pass hazards without MangoHud in the stack"
    fi
    log "$name: validation: $((total - known)) messages of its own; MangoHud's hazard $known time(s) (reference ${reference_hazards:-n/a})"
}

# same_image NAME A B : A and B (PNG/BMP paths) must be identical pixel for pixel (RGB).
same_image() {
    local name="$1" a="$2" b="$3" differ
    differ="$(compare -metric AE -alpha off "$a" "$b" "$out_dir/$name-diff.png" 2>&1 || true)"
    differ="$(awk '{ printf "%d", $1 + 0.5 }' <<<"$differ")"
    [[ "$differ" == "0" ]] || fail "$name: $differ pixel(s) differ between $a and $b (see $out_dir/$name-diff.png)"
    log "$name: identical"
}

start_xvfb
log "Xvfb on $DISPLAY; bindery: explicit $layer_path, implicit $implicit_xdg/vulkan/implicit_layer.d"
last_chain=""
# MangoHud and vkBasalt are implicit layers, so they sit above the explicit ones; the
# order between the two is the loader's (discovery order), read from the reference run.
run_stack overlays-reference - "${OVERLAY_ENV[@]}" "VK_INSTANCE_LAYERS=$VALIDATION_LAYER"
overlays="${last_chain% -> $VALIDATION_LAYER}"
[[ "$last_chain" == *"$MANGOHUD_LAYER"* && "$last_chain" == *"$VKBASALT_LAYER"* && "$overlays" != "$last_chain" ]] ||
    fail "reference chain 'app -> $last_chain' lacks MangoHud, vkBasalt or validation (last)"

run_stack bindery-below "$overlays -> $LAYER_NAME -> $VALIDATION_LAYER" "${OVERLAY_ENV[@]}" \
    "VK_ADD_LAYER_PATH=$layer_path" "VK_INSTANCE_LAYERS=$LAYER_NAME:$VALIDATION_LAYER"
same_image bindery-below "$out_dir/bindery-below.png" "$out_dir/overlays-reference.png"

run_stack bindery-above "$LAYER_NAME -> $overlays -> $VALIDATION_LAYER" "${OVERLAY_ENV[@]}" \
    "XDG_DATA_HOME=$implicit_xdg" ENABLE_BINDERY=1 "VK_INSTANCE_LAYERS=$VALIDATION_LAYER"
same_image bindery-above "$out_dir/bindery-above.png" "$out_dir/overlays-reference.png"

# gfxreconstruct: capture with Bindery on (Bindery above the capture layer, so the
# capture holds what Bindery sends down), replay without Bindery.
run_stack gfxr-capture "$LAYER_NAME -> $GFXR_LAYER -> $VALIDATION_LAYER" \
    "VK_ADD_LAYER_PATH=$layer_path" "VK_INSTANCE_LAYERS=$GFXR_LAYER:$LAYER_NAME:$VALIDATION_LAYER" \
    "GFXRECON_CAPTURE_FILE=$out_dir/gfxr-capture/vkcube.gfxr" GFXRECON_CAPTURE_FILE_TIMESTAMP=false
[[ -s "$out_dir/gfxr-capture/vkcube.gfxr" ]] || fail "gfxr-capture: no capture file written"
mkdir -p "$out_dir/gfxr-replay"
log "gfxr-replay: gfxrecon-replay --screenshots $frames (no Bindery, no implicit layers)"
if ! VK_LOADER_LAYERS_DISABLE='~implicit~' timeout --kill-after=10 "$run_timeout" gfxrecon-replay \
        --screenshots "$frames" --screenshot-dir "$out_dir/gfxr-replay" "$out_dir/gfxr-capture/vkcube.gfxr" \
        >"$out_dir/gfxr-replay/replay.log" 2>&1; then
    tail -n 20 "$out_dir/gfxr-replay/replay.log" >&2
    fail "gfxr-replay: gfxrecon-replay failed"
fi
replayed="$out_dir/gfxr-replay/screenshot_frame_$frames.bmp"
[[ -f "$replayed" ]] || fail "gfxr-replay: no screenshot of frame $frames"
convert "$replayed" -alpha off "$out_dir/gfxr-replay.png"
same_image gfxr-replay "$out_dir/gfxr-replay.png" "$out_dir/gfxr-capture.png"

log "total time $((SECONDS))s"
echo "$SCRIPT_NAME: PASS (frames=$frames)"
