# `cmake --install` and CPack, beyond the binary, the GPU backend (src/gpu: lib/coalcheck)
# and the examples (CMakeLists.txt): the documentation, the man page and the shell
# completions. The man page and completions are generated at build time by the built
# coalcheck from its own command and option tables (`coalcheck --help-man`,
# `--help-completion bash|zsh`: src/cli/man.c, completion.c), so they cannot drift from
# --help; tests/e2e/man_completion.sh checks them. Included by CMakeLists.txt.
if(NOT TARGET coalcheck)
  return()
endif()
set(cc_gen ${CMAKE_BINARY_DIR}/share)
set(cc_man ${cc_gen}/man/man1/coalcheck.1)
set(cc_bash ${cc_gen}/bash-completion/completions/coalcheck)
set(cc_zsh ${cc_gen}/zsh/site-functions/_coalcheck)
# cc_generate(OUT ARG1 [ARG2]): OUT is the output of `coalcheck ARG1 [ARG2]`
function(cc_generate out)
  set(args)
  set(n 1)
  foreach(a ${ARGN})
    list(APPEND args -DARG${n}=${a})
    math(EXPR n "${n} + 1")
  endforeach()
  add_custom_command(OUTPUT ${out}
                     COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:coalcheck> ${args}
                             -DOUT=${out} -P ${CMAKE_SOURCE_DIR}/cmake/run-to-file.cmake
                     DEPENDS coalcheck ${CMAKE_SOURCE_DIR}/cmake/run-to-file.cmake
                     COMMENT "coalcheck ${ARGN}" VERBATIM)
endfunction()
cc_generate(${cc_man} --help-man)
cc_generate(${cc_bash} --help-completion bash)
cc_generate(${cc_zsh} --help-completion zsh)
add_custom_target(cc_docs ALL DEPENDS ${cc_man} ${cc_bash} ${cc_zsh})

install(FILES ${cc_man} DESTINATION share/man/man1)
install(FILES ${cc_bash} DESTINATION share/bash-completion/completions)
install(FILES ${cc_zsh} DESTINATION share/zsh/site-functions)
install(FILES README.md DESTINATION share/doc/coalcheck)
install(DIRECTORY docs/ DESTINATION share/doc/coalcheck/docs)

# ---- CPack: a Debian package (cpack --config build/CPackConfig.cmake -G DEB, or the
# `package` target). Its Depends come from dpkg-shlibdeps (dpkg-dev) over the installed
# binaries: libisl23, libclang1-14, libcjson1, libzstd1, libstdc++6, libc6 as the binary
# links them. scripts/test-deb.sh builds, installs, runs and removes it.
set(COALCHECK_DEB_MAINTAINER "coalcheck developers <coalcheck@localhost>" CACHE STRING
    "the Maintainer field of the Debian package")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME coalcheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${COALCHECK_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "finds and fixes uncoalesced memory accesses and bank conflicts in CUDA kernels")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "coalcheck runs a CUDA kernel launch in its own SIMT emulator of PTX (no GPU needed)
or, with the GPU backend, on the GPU under Compute Sanitizer, and reports every load
and store worst first: source line, requests, 32-byte sectors per request against the
ideal, shared-memory bank conflicts and a suggestion. `coalcheck fix` rewrites the
kernel and verifies the rewrite. .cu inputs need nvcc (the CUDA toolkit).")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # coalcheck_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
