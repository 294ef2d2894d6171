# Sourced on the remote NVIDIA machine (device tool) from the repo root:
#   source scripts/lib/gpu_env.sh [build dir, default build-gpu]
# Unpacks the carried .gl/*.deb (Vulkan loader, glvnd, validation layer, libbenchmark),
# selects the NVIDIA ICD and points VK_ADD_LAYER_PATH at a manifest for this tree's
# layer library (the build tree's manifest holds the building machine's path).
# shellcheck shell=bash
BINDERY_GPU_BUILD=${1:-build-gpu}
for f in .gl/*.deb; do dpkg -x "$f" / || echo "[gpu-env] warning: dpkg -x $f failed"; done
ldconfig
export XDG_RUNTIME_DIR=/tmp
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for icd in /usr/share/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
  if [ -f "$icd" ]; then
    export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
    break
  fi
done
bindery_manifest_dir=$(mktemp -d /tmp/bindery-manifest.XXXXXX)
sed -E "s|(\"library_path\": \")[^\"]*|\1$PWD/$BINDERY_GPU_BUILD/layer/libVkLayer_bindery.so|" \
  "$BINDERY_GPU_BUILD/manifest/explicit/VkLayer_bindery.json" >"$bindery_manifest_dir/VkLayer_bindery.json"
export VK_ADD_LAYER_PATH=$bindery_manifest_dir
echo "[gpu-env] ICD ${VK_DRIVER_FILES:-none}; layer manifest $bindery_manifest_dir"
# NVIDIA's ICD fails vkCreateInstance with VK_ERROR_INCOMPATIBLE_DRIVER after ~29
# create/destroy cycles in one process when the loader dlopens/dlcloses it each time
# (seen 2026-11-21 on driver 580.159.04, with and without any layer). Keeping it loaded
# for the whole process avoids that; the test binaries create many instances.
export LD_PRELOAD=libGLX_nvidia.so.0${LD_PRELOAD:+:$LD_PRELOAD}
