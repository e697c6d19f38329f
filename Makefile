# tsmech quick start. The Makefile only delegates: meson is the build system.
#   make demo   install what is missing, build, run the default simulation
#   make test   install what is missing, build, run the whole test suite (MPI tests included)
#   make perf   the timed assertions (suite perf), not part of make test
BUILD ?= build
MESON_TEST_ARGS ?= --print-errorlogs
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

.PHONY: setup build demo test perf bench clean format

setup:
	@sh config/setup.sh

build: setup
	@if [ ! -f $(BUILD)/build.ninja ]; then meson setup $(BUILD); fi
	@meson compile -C $(BUILD)

demo: build
	@sh config/demo.sh $(BUILD)

test: build
	@meson test -C $(BUILD) $(MESON_TEST_ARGS)

# the timed assertions (suite perf), which `make test` and CI leave out: they depend on the machine's load
perf: build
	@meson test -C $(BUILD) --suite perf $(MESON_TEST_ARGS)

# the benchmark against PETSc's own steppers (bench/README.md); not part of the test suite
bench: build
	@/usr/bin/python3 bench/run_bench.py $(BENCH_ARGS)

format:
	@clang-format -i include/*.h src/*/*.[ch] src/*/*/*.[ch] examples/*.c tests/*.c tests/*/*.c

clean:
	@rm -rf $(BUILD)
