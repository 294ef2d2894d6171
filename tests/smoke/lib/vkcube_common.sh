# shellcheck shell=bash
# Shared by the vkcube smoke scripts (vkcube_smoke.sh, layer_stacks_smoke.sh): a private
# Xvfb whose framebuffer is a file, the "underlay" window that keeps the last presented
# frame on screen after vkcube exits, reading the loader's layer chain from a
# VK_LOADER_DEBUG=layer log, the validation-log check, and how a run ended (describe_exit).
#
# The caller defines log and fail, and sets work_dir, fb_dir, screen_w, screen_h before
# calling start_xvfb / start_underlay; see vkcube_smoke.sh for the screenshot method.

# Children get SIGTERM if this script dies without running its traps (e.g.
# SIGKILL from a test-runner timeout), so no Xvfb is left behind.
pdeath=()
if command -v setpriv >/dev/null 2>&1 && setpriv --pdeathsig TERM true 2>/dev/null; then
    pdeath=(setpriv --pdeathsig TERM)
fi

# On exit: stop vkcube, the underlay window and Xvfb (whichever of vkcube_pid,
# underlay_pid, xvfb_pid the caller set) and remove work_dir; INT and TERM exit with
# the usual codes. The caller calls this once its work_dir exists.
stop_everything_on_exit() {
    trap 'rc=$?; stop_pid "${vkcube_pid:-}"; stop_pid "${underlay_pid:-}"; stop_pid "${xvfb_pid:-}"; rm -rf "$work_dir"; exit "$rc"' EXIT
    trap 'log "interrupted"; exit 130' INT
    trap 'log "terminated"; exit 143' TERM
}

# describe_exit STATUS TIMEOUT: how a run under timeout(1) ended, for messages: "exit N",
# "timed out after TIMEOUT s" (124; 137 when it had to be killed), or, when the program died
# of a signal (timeout then dies of the same signal: status 128 + N), "crashed: SIGSEGV (exit
# status 139)". A crash is reported as one, never as what it left missing (issue 34).
describe_exit() {
    local rc="$1" timeout_s="$2"
    if [[ $rc == 124 || $rc == 137 ]]; then
        printf 'timed out after %s s' "$timeout_s"
    elif ((rc > 128)); then
        printf 'crashed: SIG%s (exit status %s)' "$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))" "$rc"
    else
        printf 'exit %s' "$rc"
    fi
}
# crashed STATUS: the program died of a signal (not timeout(1)'s kill).
crashed() { [[ $1 -gt 128 && $1 != 137 ]]; }

stop_pid() {
    local pid="$1"
    [[ -n "$pid" ]] || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
}

start_xvfb() {
    local fd_file="$work_dir/displayfd" i
    : >"$fd_file"
    # -displayfd: the server picks a free display number and writes it once
    # it accepts connections.
    "${pdeath[@]}" Xvfb -displayfd 3 -screen 0 "${screen_w}x${screen_h}x24" -fbdir "$fb_dir" \
        -nocursor -noreset -nolisten tcp 3>"$fd_file" >"$work_dir/xvfb.log" 2>&1 &
    xvfb_pid=$!
    for ((i = 0; i < 200; i++)); do
        if [[ -s "$fd_file" ]] && grep -q '^[0-9][0-9]*$' "$fd_file"; then
            DISPLAY=":$(head -n1 "$fd_file")"
            export DISPLAY
            return 0
        fi
        kill -0 "$xvfb_pid" 2>/dev/null || break
        sleep 0.05
    done
    cat "$work_dir/xvfb.log" >&2 || true
    fail "Xvfb did not start"
}

# Helper X client: maps a full-screen window with background None under
# vkcube's window (see the header comment), then sleeps until killed.
cat >"$work_dir/underlay.py" <<'PYEOF'
import ctypes
import signal
import sys

xlib = ctypes.CDLL("libX11.so.6")
xlib.XOpenDisplay.restype = ctypes.c_void_p
xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
xlib.XDefaultRootWindow.restype = ctypes.c_ulong
xlib.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
xlib.XCreateSimpleWindow.restype = ctypes.c_ulong
xlib.XCreateSimpleWindow.argtypes = [
    ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
    ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_ulong, ctypes.c_ulong]
xlib.XSetWindowBackgroundPixmap.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
xlib.XMapWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
xlib.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]

width, height = int(sys.argv[1]), int(sys.argv[2])
display = xlib.XOpenDisplay(None)
if not display:
    sys.exit("underlay: cannot open X display")
window = xlib.XCreateSimpleWindow(display, xlib.XDefaultRootWindow(display),
                                  0, 0, width, height, 0, 0, 0)
xlib.XSetWindowBackgroundPixmap(display, window, 0)  # 0 == None
xlib.XMapWindow(display, window)
xlib.XSync(display, 0)
print("ready", flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    signal.pause()
PYEOF

start_underlay() {
    local ready="$work_dir/underlay.ready" i
    : >"$ready"
    "${pdeath[@]}" python3 "$work_dir/underlay.py" "$screen_w" "$screen_h" >"$ready" 2>&1 &
    underlay_pid=$!
    for ((i = 0; i < 200; i++)); do
        grep -q '^ready$' "$ready" && return 0
        kill -0 "$underlay_pid" 2>/dev/null || break
        sleep 0.05
    done
    cat "$ready" >&2 || true
    fail "underlay helper window did not start"
}

stop_underlay() {
    stop_pid "$underlay_pid"
    underlay_pid=""
}

framebuffer() { printf '%s' "$fb_dir/Xvfb_screen0"; }

# Reading the layer chain from a VK_LOADER_DEBUG=layer log: layer_chain, arrows, chain_index.
source "$(dirname "${BASH_SOURCE[0]}")/loader_chain.sh"

check_validation_log() {
    local name="$1" vlog="$2" count
    [[ -f "$vlog" ]] ||
        fail "$name: validation log $vlog was not created (settings file not picked up?)"
    if [[ -s "$vlog" ]]; then
        count="$(grep -c -E '\((ERROR|WARN|PERF)[^)]*\)' "$vlog" || true)"
        echo "----- $vlog -----" >&2
        head -n 400 "$vlog" >&2
        [[ $(wc -l <"$vlog") -le 400 ]] || echo "... (truncated, see $vlog)" >&2
        echo "----- end of validation log -----" >&2
        fail "$name: validation reported $count error/warning message(s)"
    fi
}
