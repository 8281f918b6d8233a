# What `coalcheck --version` prints (src/cli/version.c). Included by CMakeLists.txt after
# src/gpu, whose coalcheck_gpu target says whether the GPU backend is built.
# - CC_PROJECT_VERSION: project(VERSION), the one place the version is written.
# - cc_build_info.c (build folder): the git revision and what the build includes, written
#   by buildinfo-gen.cmake at configure time and again at every build, only when it
#   changes: the revision follows new commits without a new configure.
target_compile_definitions(cc_cli PUBLIC CC_PROJECT_VERSION="${PROJECT_VERSION}")

set(cc_bi_gpu 0)
if(TARGET coalcheck_gpu)
  set(cc_bi_gpu 1)
endif()
set(cc_bi_libclang 0)
if(COALCHECK_LIBCLANG AND CC_LIBCLANG_INCLUDE AND CC_LIBCLANG)
  set(cc_bi_libclang 1)
endif()
set(cc_bi_mpi 0)
if(CC_HAVE_MPI) # CMakeLists.txt: COALCHECK_MPI not OFF and MPI_C found (src/cli/mpi.c)
  set(cc_bi_mpi 1)
endif()
set(cc_build_info ${CMAKE_BINARY_DIR}/cc_build_info.c)
set(cc_bi_args -DSRC=${CMAKE_SOURCE_DIR} -DOUT=${cc_build_info} -DGPU=${cc_bi_gpu}
               -DLIBCLANG=${cc_bi_libclang} -DMPI=${cc_bi_mpi})
execute_process(COMMAND ${CMAKE_COMMAND} ${cc_bi_args}
                        -P ${CMAKE_SOURCE_DIR}/cmake/buildinfo-gen.cmake)
add_custom_target(cc_build_info
                  COMMAND ${CMAKE_COMMAND} ${cc_bi_args}
                          -P ${CMAKE_SOURCE_DIR}/cmake/buildinfo-gen.cmake
                  BYPRODUCTS ${cc_build_info}
                  COMMENT "coalcheck --version: git revision" VERBATIM)
target_sources(cc_cli PRIVATE ${cc_build_info})
add_dependencies(cc_cli cc_build_info)
