# shellcheck shell=bash
# The layer chain the Vulkan loader built, read from a VK_LOADER_DEBUG=layer log (shared by
# the smoke scripts through vkcube_common.sh, and by scripts/demo).

# Print the layer names of the first "<call> layer callstack setup to:" block
# of a VK_LOADER_DEBUG=layer log, application side first.
layer_chain() {
    local call="$1" file="$2"
    awk -v hdr="$call layer callstack setup to:" '
        index($0, hdr) { on = 1; next }
        on && /<Drivers>|<Device>/ { exit }
        on && $1 == "LAYER:" && NF == 2 && $2 ~ /^VK_LAYER_/ { print $2 }
    ' "$file"
}

# "a\nb\nc" -> "a -> b -> c"
arrows() {
    local joined
    joined="$(paste -s -d' ' - <<<"$1")"
    printf '%s' "${joined// / -> }"
}

# index of a layer in a newline separated chain, -1 if absent
chain_index() {
    local chain="$1" name="$2" i=0 l
    while IFS= read -r l; do
        [[ "$l" == "$name" ]] && { echo "$i"; return 0; }
        i=$((i + 1))
    done <<<"$chain"
    echo -1
}
