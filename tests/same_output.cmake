# Runs GEN with OUT as its argument and fails unless OUT is byte for byte the file WANT: a
# committed generated file (examples/levels/level.glb) is what its generator writes.
execute_process(COMMAND ${GEN} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GEN} failed: ${rc}")
endif()
file(SHA256 ${OUT} got)
file(SHA256 ${WANT} want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "${WANT} is not what ${GEN} writes (run it to write it again)")
endif()
