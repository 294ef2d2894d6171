# The Debian package (cpack -G DEB, or scripts/package): everything `cmake --install`
# puts down, under /usr: the layer library, the explicit and implicit manifests (which
# find the library by a path relative to themselves), the public header and the
# bindery-spirv tool. Dependencies come from dpkg-shlibdeps, plus the Vulkan loader that
# reads the manifests.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bindery)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Bindery")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Vulkan layer: indirect bindings, timeline emulation, transfers at any byte")
set(CPACK_PACKAGE_DESCRIPTION
  "VK_LAYER_bindery gives an unmodified Vulkan application buffer descriptors as\n\
device-address argument blocks (beyond the driver's descriptor limits), timeline\n\
semaphores with wait-before-signal where the driver lacks them, and fills, updates\n\
and copies at any byte offset. Implicit layer: enable it with ENABLE_BINDERY=1.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Bindery developers <bindery@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libvulkan1")
# gzip: the package is built inside a smoke test on a 2-core machine; xz costs more there.
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
include(CPack)
