# Shared by scripts/test, scripts/demo and friends: progress output and dependencies.
# shellcheck shell=bash

BINDERY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Debian 12 packages the build, the tests, the demo and the benchmarks need.
BINDERY_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config python3
  libvulkan-dev vulkan-tools vulkan-validationlayers vulkan-validationlayers-dev mesa-vulkan-drivers
  spirv-tools spirv-headers glslang-dev glslang-tools libspirv-cross-c-shared-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  xvfb x11-apps imagemagick libxcb1-dev
  mangohud vkbasalt gfxreconstruct
  piglit glmark2-x11 mesa-utils libgl1-mesa-dri
  clang libclang-rt-14-dev
)

# Installs whatever of BINDERY_PACKAGES is missing (apt, as root or through sudo).
ensure_packages() {
  local missing=()
  local p
  for p in "${BINDERY_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "all ${#BINDERY_PACKAGES[@]} packages present"
    return
  fi
  echo "installing: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "missing packages (${missing[*]}) and not root: install them or run as root"
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >/tmp/bindery-apt.log 2>&1 || { tail -20 /tmp/bindery-apt.log; die "apt-get install failed"; }
}

# configure_and_build <build dir> [extra cmake args...]
configure_and_build() {
  local dir=$1
  shift
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  local werror=OFF
  [ "${CI:-}" = true ] && werror=ON
  mkdir -p "$dir"
  cmake -S "$BINDERY_ROOT" -B "$dir" -G Ninja -DBINDERY_WERROR=$werror "${launcher[@]}" "$@" >"$dir/configure.log" 2>&1 \
    || { cat "$dir/configure.log"; die "cmake configure failed"; }
  cmake --build "$dir" -j "${BUILD_JOBS:-2}"
}

# configure_and_build_targets <build dir> "<targets...>" [extra cmake args...]: only those targets.
configure_and_build_targets() {
  local dir=$1 targets=$2
  shift 2
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  local werror=OFF
  [ "${CI:-}" = true ] && werror=ON
  mkdir -p "$dir"
  cmake -S "$BINDERY_ROOT" -B "$dir" -G Ninja -DBINDERY_WERROR=$werror "${launcher[@]}" "$@" >"$dir/configure.log" 2>&1 \
    || { cat "$dir/configure.log"; die "cmake configure failed"; }
  # shellcheck disable=SC2086
  cmake --build "$dir" -j "${BUILD_JOBS:-2}" --target $targets
}
