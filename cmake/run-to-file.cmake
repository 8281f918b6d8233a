# cmake -DEXE=PROGRAM -DARG1=WORD [-DARG2=WORD] -DOUT=FILE -P run-to-file.cmake
# Runs PROGRAM ARG1 [ARG2] and writes its standard output to OUT whole (a failed run
# leaves no OUT and fails the build): the man page and completions of cmake/install.cmake.
set(args ${ARG1})
if(DEFINED ARG2)
  list(APPEND args ${ARG2})
endif()
get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
execute_process(COMMAND ${EXE} ${args} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${EXE} ${args} failed (${rc})")
endif()
file(RENAME ${OUT}.tmp ${OUT})
