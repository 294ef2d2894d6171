#!/usr/bin/env bash
# Real programs under indirect bindings (docs/indirect-bindings.md, "Real programs"): OpenGL on Mesa's zink driver over
# lavapipe (piglit tests of UBOs, SSBOs and compute shaders, glmark2) and a gfxreconstruct
# replay, each run twice on a private Xvfb:
#   native:  VK_LAYER_KHRONOS_validation only
#   bindery: VK_LAYER_bindery above validation, BINDERY_INDIRECT_BINDINGS=force and
#            BINDERY_BINDINGS_UBO=on
# piglit: the layer must never turn a test's result into a worse one (a test the driver
# fails natively but passes through the layer is reported, not failed), must report no
# validation message the native run does not, and must really convert (the per-device
# summaries must count rewritten pipelines and converted sets). glmark2: both runs exit 0
# with a score and the same validation messages. gfxreconstruct: vkcube captured without
# Bindery, replayed with and without it: the replayed frame must be identical, validation
# (synchronization validation on) adds no message to the native replay's (gfxrecon-replay's
# screenshot code has its own), and the replay's pipeline rewritten.
#
# Synchronization validation is OFF for the zink runs: validation 1.3.239's sync validation
# spins at the first queue submission of zink's compute work (minutes per test, without
# Bindery too, found here); core validation stays on. The vkcube replay keeps it on.
#
# zink on lavapipe needs both MESA_LOADER_DRIVER_OVERRIDE=zink and LIBGL_ALWAYS_SOFTWARE=1
# under Xvfb (no DRI3 there): checked with glxinfo -B, whose renderer must name zink.
#
# Every program runs with lib/exit_guard.c preloaded (built here with cc), in both modes: it
# keeps the validation layer's static objects alive through exit() (validation 1.3.239 frees
# a map at exit that zink's last vkQueueSubmit, made from piglit's atexit teardown, still
# reads: the cause of the crashes at exit seen under load, issue 34) and prints the stack of
# a program that dies of a signal. A program that dies of a signal, in either mode, fails
# the test with the signal, the program and the mode named (a crash after the program
# printed its result is a crash too).
#
# Exits 77 (CTest SKIP_RETURN_CODE) with the reason when a program is not installed or Xvfb
# cannot start.  Usage: real_programs_bindings_smoke.sh --layer-path DIR --out DIR
set -euo pipefail

readonly LAYER_NAME="VK_LAYER_bindery"
readonly VALIDATION_LAYER="VK_LAYER_KHRONOS_validation"
readonly GFXR_LAYER="VK_LAYER_LUNARG_gfxreconstruct"
readonly LVP_ICD="/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
readonly PIGLIT_DIR="${PIGLIT_DIR:-/usr/lib/x86_64-linux-gnu/piglit}"
readonly ZINK_DRI="/usr/lib/x86_64-linux-gnu/dri/zink_dri.so"
readonly RUN_TIMEOUT=60
readonly FRAMES=10

SCRIPT_NAME="real programs bindings smoke"
log() { printf '[real-programs] %s\n' "$*"; }
fail() {
    printf '[real-programs] ERROR: %s\n' "$*" >&2
    printf '%s: FAIL\n' "$SCRIPT_NAME" >&2
    exit 1
}
skip() {
    printf '%s: SKIP: %s\n' "$SCRIPT_NAME" "$*"
    exit 77
}

layer_path="" out_dir=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --layer-path) layer_path="$2"; shift 2 ;;
        --out) out_dir="$2"; shift 2 ;;
        *) fail "unknown argument '$1'" ;;
    esac
done
[[ -n "$layer_path" && -n "$out_dir" ]] || fail "usage: $0 --layer-path DIR --out DIR"
[[ -f "$layer_path/VkLayer_bindery.json" ]] || fail "$layer_path/VkLayer_bindery.json missing (layer not built?)"
layer_path="$(cd "$layer_path" && pwd)"

# Missing programs skip (Debian packages piglit, glmark2-x11, mesa-utils, gfxreconstruct,
# vulkan-tools, libgl1-mesa-dri, xvfb, imagemagick).
[[ -x "$PIGLIT_DIR/bin/shader_runner" ]] || skip "piglit not installed ($PIGLIT_DIR/bin/shader_runner)"
[[ -f "$ZINK_DRI" ]] || skip "Mesa's zink driver not installed ($ZINK_DRI)"
[[ -f "$LVP_ICD" ]] || skip "lavapipe not installed ($LVP_ICD)"
for tool in Xvfb glxinfo glmark2 gfxrecon-replay vkcube compare convert timeout python3 cc; do
    command -v "$tool" >/dev/null 2>&1 || skip "'$tool' not installed"
done
[[ -f /usr/share/vulkan/explicit_layer.d/VkLayer_gfxreconstruct.json ]] || skip "gfxreconstruct capture layer missing"

mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
rm -rf "${out_dir:?}"/*

# A clean Vulkan and GL environment: only what each run sets.
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(VK_|BINDERY_|MESA_|GALLIUM_|LIBGL_|ZINK_|GFXRECON)' || true)
unset WAYLAND_DISPLAY DISPLAY
export VK_DRIVER_FILES="$LVP_ICD" VK_ICD_FILENAMES="$LVP_ICD"
export VK_LOADER_LAYERS_DISABLE='~implicit~'
work_dir="$(mktemp -d "${TMPDIR:-/tmp}/real-programs.XXXXXX")"
export XDG_RUNTIME_DIR="$work_dir/xdg-runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"
fb_dir="$work_dir/fb"
mkdir "$fb_dir"
exit_guard="$work_dir/exit_guard.so"
cc -O2 -shared -fPIC -o "$exit_guard" "$(dirname "${BASH_SOURCE[0]}")/lib/exit_guard.c" -ldl 2>"$work_dir/exit_guard.log" ||
    { cat "$work_dir/exit_guard.log" >&2; fail "could not build lib/exit_guard.c"; }
# Used by lib/vkcube_common.sh (start_xvfb, stop_underlay).
# shellcheck disable=SC2034
screen_w=512 screen_h=512 underlay_pid=""
xvfb_pid=""
source "$(dirname "${BASH_SOURCE[0]}")/lib/vkcube_common.sh"
cleanup() {
    local rc=$?
    stop_pid "$xvfb_pid"
    rm -rf "$work_dir"
    exit "$rc"
}
trap cleanup EXIT

# Xvfb that cannot start is a skip (the test needs a display), not a failure.
real_fail=$(declare -f fail)
fail() { skip "Xvfb did not start: $*"; }
start_xvfb
eval "$real_fail"
log "Xvfb on $DISPLAY"

# settings FILE VALIDATION_LOG SYNC(0|1)
write_settings() {
    {
        [[ $3 == 1 ]] && echo "khronos_validation.enables = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT"
        echo "khronos_validation.report_flags = error,warn"
        echo "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG"
        echo "khronos_validation.log_filename = $2"
        echo "bindery.log_level = info"
    } >"$1"
}

# run_program MODE(native|bindery) DIR SYNC COMMAND... : runs COMMAND with that mode's
# layers; output in DIR/out.log, validation in DIR/validation.log, Bindery's log in
# DIR/bindery.log. Sets run_rc.
run_program() {
    local mode="$1" dir="$2" sync="$3"
    shift 3
    mkdir -p "$dir"
    write_settings "$dir/settings.txt" "$dir/validation.log" "$sync"
    run_rc=0
    # (The outer braces keep bash's own "Segmentation fault" job message, with this whole
    # block's text, out of the log: the script reports a crash itself, once, by name.)
    { (
        export VK_LAYER_SETTINGS_PATH="$dir/settings.txt"
        export LD_PRELOAD="$exit_guard${LD_PRELOAD:+:$LD_PRELOAD}" EXIT_GUARD_KEEP_STATICS_OF=libVkLayer_khronos_validation.so
        if [[ $mode == bindery ]]; then
            export VK_ADD_LAYER_PATH="$layer_path" VK_INSTANCE_LAYERS="$LAYER_NAME:$VALIDATION_LAYER"
            # Every rewritten module goes through spirv-val (bindings_validate) and is written
            # to DIR/dump (zink's own modules, for the corpus and bug reports).
            export BINDERY_INDIRECT_BINDINGS=force BINDERY_BINDINGS_UBO=on BINDERY_LOG_FILE="$dir/bindery.log"
            export BINDERY_BINDINGS_VALIDATE=on BINDERY_BINDINGS_DUMP="$dir/dump"
            mkdir -p "$dir/dump"
        else
            export VK_INSTANCE_LAYERS="$VALIDATION_LAYER"
        fi
        exec "${pdeath[@]}" timeout --kill-after=5 "$RUN_TIMEOUT" "$@"
    ) >"$dir/out.log" 2>&1 </dev/null; } 2>/dev/null || run_rc=$?
}

messages() { grep -E '\((ERROR|WARN|PERF)[^)]*\)' "$1" 2>/dev/null | grep -o -E '^[A-Za-z0-9_-]+' | sort || true; }

# ------------------------------------------------------------------ zink
gl_env=(env MESA_LOADER_DRIVER_OVERRIDE=zink LIBGL_ALWAYS_SOFTWARE=1)
run_program bindery "$out_dir/glxinfo" 0 env VK_LOADER_DEBUG=layer "${gl_env[@]}" glxinfo -B
renderer="$(grep -m1 'OpenGL renderer string' "$out_dir/glxinfo/out.log" | sed 's/.*: //' || true)"
[[ $run_rc == 0 && "$renderer" == zink* ]] ||
    fail "glxinfo -B under zink: $(describe_exit "$run_rc" "$RUN_TIMEOUT"), renderer '${renderer:-none}' (expected zink; see $out_dir/glxinfo/out.log)"
chain="$(layer_chain vkCreateDevice "$out_dir/glxinfo/out.log")"
[[ "$(arrows "$chain")" == "$LAYER_NAME -> $VALIDATION_LAYER" ]] ||
    fail "zink's device chain is 'app -> $(arrows "$chain")', expected $LAYER_NAME above $VALIDATION_LAYER"
log "GL renderer: $renderer; zink's device chain: app -> $(arrows "$chain") -> lavapipe"

# The exit guard checked (issue 34): with freed memory scribbled (MALLOC_PERTURB_), the
# validation layer's read of its freed statics at exit crashes every time instead of now and
# then. With the guard a piglit program must not crash; without it the same run shows whether
# the guard is still needed (a validation layer without the bug would survive it). Only a
# crash fails here: the program's own result is judged with the others below.
exit_probe=(env MALLOC_PERTURB_=165 "${gl_env[@]}" "$PIGLIT_DIR/bin/shader_runner"
    "$PIGLIT_DIR/tests/spec/arb_compute_shader/execution/shared-atomicExchange-int.shader_test" -auto -fbo)
run_program native "$out_dir/exit-guard/kept" 0 "${exit_probe[@]}"
! crashed "$run_rc" || { tail -n 30 "$out_dir/exit-guard/kept/out.log" >&2;
    fail "exit guard: a piglit program with freed memory scribbled $(describe_exit "$run_rc" "$RUN_TIMEOUT") although the validation layer's statics were kept (see $out_dir/exit-guard/kept/out.log)"; }
run_program native "$out_dir/exit-guard/freed" 0 env EXIT_GUARD_KEEP_STATICS_OF= "${exit_probe[@]}"
if crashed "$run_rc"; then
    log "exit guard: needed (the same program without it: $(describe_exit "$run_rc" "$RUN_TIMEOUT") at exit, in the validation layer)"
else
    log "exit guard: the program survives without it too ($(describe_exit "$run_rc" "$RUN_TIMEOUT")): a validation layer without the bug? (lib/exit_guard.c)"
fi

# piglit: the execution tests of UBOs, SSBOs and compute shaders (GLSL, and SPIR-V given to
# GL directly: arb_gl_spirv), GLSL 1.40 uniform blocks, and a few programs; and the areas
# where binds and draws meet the layer's bind-point state: arrays of uniform buffers and
# samplers indexed in fragment shaders and the rest of arb_gpu_shader5's execution tests
# (its built-in function tests bind nothing), arb_arrays_of_arrays, image load/store,
# tessellation and geometry stages, fp64 (uniforms, UBOs and SSBOs of doubles).
cd "$PIGLIT_DIR/tests/spec"
mapfile -t shader_tests < <( {
    find arb_shader_storage_buffer_object/execution arb_compute_shader/execution \
        arb_uniform_buffer_object arb_gl_spirv/execution/ssbo arb_gl_spirv/execution/ubo glsl-1.40/uniform_buffer \
        arb_arrays_of_arrays/execution arb_shader_image_load_store/execution glsl-1.50/execution/geometry \
        -name '*.shader_test' 2>/dev/null
    find arb_gpu_shader5/execution -name '*.shader_test' -not -path '*/built-in-functions/*' 2>/dev/null
    find arb_tessellation_shader/execution arb_gpu_shader_fp64/execution -maxdepth 1 -name '*.shader_test' 2>/dev/null
} | sort)
readonly BIN_TESTS=(arb_uniform_buffer_object-rendering arb_uniform_buffer_object-rendering-array
    arb_uniform_buffer_object-rendering-dsa arb_uniform_buffer_object-bufferstorage arb_uniform_buffer_object-row-major
    arb_shader_storage_buffer_object-rendering arb_shader_storage_buffer_object-array-ssbo-binding
    arb_shader_storage_buffer_object-layout-std430-write-shader arb_shader_storage_buffer_object-maxblocks
    arb_compute_shader-indirect-compute arb_compute_shader-render-and-compute
    arb_gpu_shader_fp64-fs-non-uniform-control-flow-ubo arb_gpu_shader_fp64-fs-non-uniform-control-flow-ssbo
    arb_gpu_shader_fp64-layout-std140-fp64-shader arb_gpu_shader_fp64-layout-std430-fp64-shader
    arb_gpu_shader_fp64-layout-std140-fp64-mixed-shader arb_gpu_shader_fp64-layout-std430-fp64-mixed-shader
    # Issue 30 part 6: image load/store indexed by a uniform in every stage (lavapipe takes
    # the index from lane 0: vertex/tessellation/geometry failed forced with converted
    # uniform buffers), and storage blocks at and one vec4 beyond GL's limit (the limit
    # Bindery raises: vsexceed crashed lavapipe at 2^31). Arguments after a ':'.
    arb_shader_image_load_store-indexing
    arb_shader_storage_buffer_object-max-ssbo-size:vs arb_shader_storage_buffer_object-max-ssbo-size:vsexceed
    arb_shader_storage_buffer_object-max-ssbo-size:fs arb_shader_storage_buffer_object-max-ssbo-size:fsexceed)
[[ ${#shader_tests[@]} -gt 20 ]] || skip "piglit's shader tests not found under $PIGLIT_DIR/tests/spec"

# Every piglit test runs; the tests that break the rule are listed together at the end.
# A test listed in KNOWN_WORSE broke it before the run was widened to it: still run and
# reported on every run (and reported when it no longer breaks it), not failed; the list
# is the to-do it names.
# (arb_gpu_shader5's fs-simple-texture-size was listed until lavapipe's image queries on
# sampler arrays got their index broadcast: spirv/uniform_descriptor_index.h.)
declare -A KNOWN_WORSE=()
problems=()
known=()
problem() {
    if [[ -n "${KNOWN_WORSE[$name]:-}" ]]; then
        log "KNOWN, still broken: $*"
        known+=("$name")
        return
    fi
    log "RULE BROKEN: $*"
    problems+=("$*")
}

result_of() {
    local r
    r="$(grep -o '"result": "[a-z]*"' "$1/out.log" | tail -n1 | cut -d'"' -f4 || true)"
    if [[ -z "$r" ]]; then
        [[ $run_rc == 124 || $run_rc == 137 ]] && r=timeout || r="crash($run_rc)"
    fi
    printf '%s' "$r"
}

# Fallback reasons docs/indirect-bindings.md ("Shader features that still fall back") names as intended (an extended regex);
# any other reason fails the run.
readonly INTENDED_FALLBACKS='^(not converted: (descriptor array sized by a specialization constant|bounds checks: |a buffer of 8/16-bit storage-only values needs shaderInt64|converted buffers share a block type|a dynamically uniform descriptor-array index read from a converted uniform buffer)|dynamic storage buffers with OpArrayLength or bounds checks)'

t0=$SECONDS
total=0 improved=0 rewritten=0 converted=0 fallen=0
for name in "${shader_tests[@]}" "${BIN_TESTS[@]}"; do
    if [[ $name == *.shader_test ]]; then
        cmd=("$PIGLIT_DIR/bin/shader_runner" "$name" -auto -fbo)
    else
        # name[:argument]: a program and its one argument.
        program="${name%%:*}" argument=()
        [[ $name == *:* ]] && argument=("${name#*:}")
        cmd=("$PIGLIT_DIR/bin/$program" "${argument[@]}" -auto -fbo)
    fi
    id="${name//\//_}" id="${id//:/_}"
    declare -A result=()
    crash=""
    for mode in native bindery; do
        run_program "$mode" "$out_dir/piglit/$mode/$id" 0 "${gl_env[@]}" "${cmd[@]}"
        result[$mode]="$(result_of "$out_dir/piglit/$mode/$id")"
        if crashed "$run_rc"; then
            tail -n 30 "$out_dir/piglit/$mode/$id/out.log" >&2
            crash+="${crash:+; }$mode run $(describe_exit "$run_rc" "$RUN_TIMEOUT") after printing result '${result[$mode]}'"
        fi
    done
    total=$((total + 1))
    if [[ -n "$crash" ]]; then
        printf '%-90s %s\n' "$name" "$crash" >>"$out_dir/piglit-results.txt"
        problem "piglit $name: $crash (logs, with the stack: $out_dir/piglit/*/$id/out.log)"
        continue
    fi
    nat="${result[native]}" bin="${result[bindery]}"
    printf '%-90s native %-8s bindery %s\n' "$name" "$nat" "$bin" >>"$out_dir/piglit-results.txt"
    if [[ "$nat" != "$bin" ]]; then
        if [[ "$bin" == pass ]]; then
            improved=$((improved + 1))
            log "piglit $name: native $nat, bindery pass (the driver's bug avoided by the rewrite)"
        else
            tail -n 20 "$out_dir/piglit/bindery/$id/out.log" >&2
            problem "piglit $name: native $nat, with Bindery $bin (logs: $out_dir/piglit/*/$id)"
        fi
    fi
    bdir="$out_dir/piglit/bindery/$id"
    summary="$(grep 'BINDERY-summary' "$bdir/bindery.log" 2>/dev/null | tail -n1 || true)"
    [[ -n "$summary" ]] || { problem "piglit $name: no Bindery device summary (was the layer loaded? $bdir/bindery.log)"; continue; }
    # "fallen back N" is followed by its reasons when N > 0: "fallen back 2: {reason × 2}".
    [[ $summary =~ pipelines\ rewritten\ ([0-9]+),\ fallen\ back\ ([0-9]+)(:\ \{([^}]*)\})?,\ descriptor\ sets\ converted\ ([0-9]+) ]] ||
        { problem "piglit $name: summary without the indirect-bindings counters: $summary"; continue; }
    rewritten=$((rewritten + BASH_REMATCH[1])) fallen=$((fallen + BASH_REMATCH[2])) converted=$((converted + BASH_REMATCH[5]))
    reasons="${BASH_REMATCH[4]}"
    if grep -q 'bindings-validate.*fails spirv-val' "$bdir/bindery.log" 2>/dev/null; then
        grep 'bindings-validate' "$bdir/bindery.log" | head -n 5 >&2
        problem "piglit $name: a rewritten module fails spirv-val (dump: $bdir/dump)"
    fi
    if [[ -n "$reasons" ]]; then
        printf '%s: %s\n' "$name" "$reasons" >>"$out_dir/piglit-fallbacks.txt"
        # Only the fallbacks docs/indirect-bindings.md names as intended may remain.
        unintended="$(tr ';' '\n' <<<"$reasons" | sed 's/^ *//' | grep -v -E "$INTENDED_FALLBACKS" || true)"
        [[ -z "$unintended" ]] || problem "piglit $name: unintended fallback: $unintended"
    fi
    new_messages="$(comm -13 <(messages "$out_dir/piglit/native/$id/validation.log") \
        <(messages "$bdir/validation.log"))"
    if [[ -n "$new_messages" ]]; then
        head -n 40 "$bdir/validation.log" >&2
        problem "piglit $name: validation messages with Bindery that the native run does not have: $new_messages"
    fi
done
for name in "${!KNOWN_WORSE[@]}"; do
    [[ " ${known[*]} " == *" $name "* ]] || log "KNOWN_WORSE entry no longer broken (remove it): $name"
done
[[ ${#known[@]} -eq 0 ]] || log "piglit: ${#known[@]} known test(s) still worse with Bindery: ${known[*]}"
[[ ${#problems[@]} -eq 0 ]] || fail "piglit: ${#problems[@]} of $total tests broke the rule:$(printf '\n  %s' "${problems[@]}")"
log "piglit: $total tests, same results but $improved improved by Bindery ($((SECONDS - t0))s); summed summaries:" \
    "pipelines rewritten $rewritten, fallen back $fallen, descriptor sets converted $converted"
[[ $rewritten -gt 0 && $converted -gt 0 ]] || fail "piglit: Bindery converted nothing"

# glmark2: two scenes, off-screen.
for mode in native bindery; do
    run_program "$mode" "$out_dir/glmark2/$mode" 0 "${gl_env[@]}" glmark2 --off-screen -s 128x128 \
        -b build:duration=0.5 -b shading:shading=phong:duration=0.5
    if [[ $run_rc != 0 ]] || ! grep -q 'glmark2 Score' "$out_dir/glmark2/$mode/out.log"; then
        fail "glmark2 ($mode): $(describe_exit "$run_rc" "$RUN_TIMEOUT") or no score (see $out_dir/glmark2/$mode/out.log)"
    fi
done
[[ "$(messages "$out_dir/glmark2/native/validation.log")" == "$(messages "$out_dir/glmark2/bindery/validation.log")" ]] ||
    fail "glmark2: validation messages differ with Bindery (see $out_dir/glmark2/*/validation.log)"
log "glmark2: both runs scored; validation messages identical ($(messages "$out_dir/glmark2/native/validation.log" | wc -l) in each, zink's own);" \
    "$(grep -o 'pipelines rewritten.*' "$out_dir/glmark2/bindery/bindery.log" | tail -n1)"
cd "$out_dir"

# ------------------------------------------------------------- gfxreconstruct
mkdir -p "$out_dir/gfxr"
(
    export VK_INSTANCE_LAYERS="$GFXR_LAYER" GFXRECON_CAPTURE_FILE="$out_dir/gfxr/vkcube.gfxr" GFXRECON_CAPTURE_FILE_TIMESTAMP=false
    exec "${pdeath[@]}" timeout --kill-after=5 "$RUN_TIMEOUT" vkcube --c "$FRAMES" --suppress_popups --width 256 --height 256
) >"$out_dir/gfxr/capture.log" 2>&1 || fail "gfxreconstruct capture of vkcube failed (see $out_dir/gfxr/capture.log)"
[[ -s "$out_dir/gfxr/vkcube.gfxr" ]] || fail "gfxreconstruct wrote no capture"
for mode in native bindery; do
    mkdir -p "$out_dir/gfxr/$mode"
    run_program "$mode" "$out_dir/gfxr/$mode" 1 gfxrecon-replay --screenshots "$FRAMES" \
        --screenshot-dir "$out_dir/gfxr/$mode" "$out_dir/gfxr/vkcube.gfxr"
    [[ $run_rc == 0 ]] || fail "gfxrecon-replay ($mode): $(describe_exit "$run_rc" "$RUN_TIMEOUT") (see $out_dir/gfxr/$mode/out.log)"
    [[ -f "$out_dir/gfxr/$mode/screenshot_frame_$FRAMES.bmp" ]] || fail "gfxrecon-replay ($mode): no screenshot of frame $FRAMES"
done
# gfxrecon-replay 0.9.18's own screenshot path trips validation (it resets and resubmits a
# command buffer still in use and blits without a barrier after a layout transition), with
# or without Bindery: Bindery's run must add no message to the native run's.
new_messages="$(comm -13 <(messages "$out_dir/gfxr/native/validation.log") <(messages "$out_dir/gfxr/bindery/validation.log"))"
if [[ -n "$new_messages" ]]; then
    head -n 40 "$out_dir/gfxr/bindery/validation.log" >&2
    fail "gfxreconstruct replay: validation messages with Bindery that the native replay does not have: $new_messages"
fi
gfxr_native_messages="$(messages "$out_dir/gfxr/native/validation.log" | wc -l)"
differ="$(compare -metric AE -alpha off "$out_dir/gfxr/native/screenshot_frame_$FRAMES.bmp" \
    "$out_dir/gfxr/bindery/screenshot_frame_$FRAMES.bmp" "$out_dir/gfxr/diff.png" 2>&1 || true)"
[[ "$(awk '{ printf "%d", $1 + 0.5 }' <<<"$differ")" == 0 ]] ||
    fail "gfxreconstruct replay: frame $FRAMES differs with Bindery ($differ pixels; $out_dir/gfxr/diff.png)"
gsum="$(grep -o 'pipelines rewritten.*' "$out_dir/gfxr/bindery/bindery.log" | tail -n1 || true)"
[[ $gsum =~ pipelines\ rewritten\ [1-9][0-9]*,\ fallen\ back\ 0,\ descriptor\ sets\ converted\ [1-9] ]] ||
    fail "gfxreconstruct replay: the layer did not convert the replay: '${gsum:-no summary}'"
log "gfxreconstruct: vkcube captured without Bindery, replayed with it forced: frame $FRAMES identical, no validation message of its own (the replay tool's own: $gfxr_native_messages in both); $gsum"

# A zink program's capture (its Vulkan stream: descriptor templates, UBOs, many sets),
# replayed with and without Bindery, synchronization validation on. zink under Xvfb never
# presents through Vulkan (its frames go out through the X server), so there is no frame
# to compare: both replays must exit 0 with validation silent, and Bindery's must convert.
# gfxreconstruct 0.9.18's capture layer aborts when zink's process exits (SIGABRT, no Bindery
# involved: with lib/exit_guard.c preloaded the stack shows a SIGSEGV in its vkDestroySemaphore,
# called by zink from piglit's exit-time teardown, which keeping its statics does not cure);
# the capture is flushed after every command, so it is whole: the program's own result must
# be a pass.
zink_program=arb_uniform_buffer_object-rendering
capture_rc=0
(
    export VK_INSTANCE_LAYERS="$GFXR_LAYER" GFXRECON_CAPTURE_FILE="$out_dir/gfxr/zink.gfxr" \
        GFXRECON_CAPTURE_FILE_TIMESTAMP=false GFXRECON_CAPTURE_FILE_FLUSH=true
    exec "${pdeath[@]}" timeout --kill-after=5 "$RUN_TIMEOUT" "${gl_env[@]}" "$PIGLIT_DIR/bin/$zink_program" -auto -fbo
) >"$out_dir/gfxr/zink-capture.log" 2>&1 || capture_rc=$?
grep -q '"result": "pass"' "$out_dir/gfxr/zink-capture.log" && [[ -s "$out_dir/gfxr/zink.gfxr" ]] ||
    fail "gfxreconstruct capture of piglit's $zink_program on zink failed (exit $capture_rc, $out_dir/gfxr/zink-capture.log)"
log "gfxreconstruct: $zink_program captured on zink (capture exit status $capture_rc)"
for mode in native bindery; do
    run_program "$mode" "$out_dir/gfxr/zink-$mode" 1 gfxrecon-replay "$out_dir/gfxr/zink.gfxr"
    [[ $run_rc == 0 ]] || fail "gfxrecon-replay of $zink_program ($mode): $(describe_exit "$run_rc" "$RUN_TIMEOUT") (see $out_dir/gfxr/zink-$mode/out.log)"
    check_validation_log "gfxr-zink-replay-$mode" "$out_dir/gfxr/zink-$mode/validation.log"
done
zsum="$(grep -o 'pipelines rewritten.*' "$out_dir/gfxr/zink-bindery/bindery.log" | tail -n1 || true)"
[[ $zsum =~ pipelines\ rewritten\ [1-9][0-9]*,\ fallen\ back\ 0,\ descriptor\ sets\ converted\ [1-9] ]] ||
    fail "gfxreconstruct replay of $zink_program: the layer did not convert it: '${zsum:-no summary}'"
log "gfxreconstruct: piglit's $zink_program on zink captured without Bindery, replayed with and without it:" \
    "both exit 0, validation silent (sync on); $zsum"
log "total time ${SECONDS}s"
echo "$SCRIPT_NAME: PASS (piglit $total tests, $improved improved; glmark2; gfxreconstruct replays of vkcube and a zink program)"
