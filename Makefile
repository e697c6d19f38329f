# tsmech quick start. The Makefile only delegates: meson is the build system.
#   make demo   install what is missing, build, run the default simulation
#   make test   install what is missing, build, run the whole test suite (MPI tests included)
BUILD ?= build
MESON_TEST_ARGS ?= --print-errorlogs
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

.PHONY: setup build demo test bench clean format

setup:
	@sh config/setup.sh

build: setup
	@if [ ! -f $(BUILD)/build.ninja ]; then meson setup $(BUILD); fi
	@meson compile -C $(BUILD)

demo: build
	@sh config/demo.sh $(BUILD)

test: build
	@meson test -C $(BUILD) $(MESON_TEST_ARGS)

# the benchmark against PETSc's own steppers (bench/README.md); not part of the test suite
bench: build
	@/usr/bin/python3 bench/run_bench.py $(BENCH_ARGS)

format:
	@clang-format -i include/*.h src/*/*.[ch] src/*/*/*.[ch] examples/*.c tests/*.c tests/*/*.c

clean:
	@rm -rf $(BUILD)
