#!/bin/sh
# The wrapper of every test (tests/meson.build, add_test_setup): meson counts exit status 77 as
# "skipped", and 77 is also PETSC_ERR_PLIB, the error code of a failed PetscCheck() in a test or a
# library consistency check, which a C test's main returns as its exit status. A test that may
# skip (a missing optional tool: valgrind, pvpython) says so with TSMECH_TEST_MAY_SKIP=1; from any
# other test, 77 is a failure.
"$@"
status=$?
if [ $status -eq 77 ] && [ "${TSMECH_TEST_MAY_SKIP:-0}" != 1 ]; then
  echo "noskip.sh: exit status 77 (PETSC_ERR_PLIB, or a skip) from a test that cannot be skipped: failed" >&2
  exit 1
fi
exit $status
