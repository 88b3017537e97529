# A thin wrapper over CMake presets so that a fresh Debian 12 machine needs two commands:
#   make run    install what is missing, build the release preset, serve the demo scene on :7777
#   make test   install what is missing, build the debug and asan presets, run every test in both
# Flags for the server: make run ARGS="--port 7800 --log-level debug"

DEB_PACKAGES := gcc make cmake pkg-config libuv1-dev libcjson-dev check
# The peer library mink-bench compares against (optional for every other target).
BENCH_PACKAGES := libchipmunk-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
JOBS := $(shell nproc 2>/dev/null || echo 2)
ARGS ?=

.PHONY: all deps build run test test-debug test-asan bench clean

all: build

# Installs the Debian packages that are not installed yet (nothing to do when all are there).
deps:
	@missing=""; for p in $(DEB_PACKAGES) $(EXTRA_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	cmake --preset release
	cmake --build --preset release -j $(JOBS)

run: build
	./build/mink-server $(ARGS)

test: test-debug test-asan

test-debug: deps
	cmake --preset debug
	cmake --build --preset debug -j $(JOBS)
	ctest --preset debug -j $(JOBS)

test-asan: deps
	cmake --preset asan
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

bench:
	$(MAKE) build EXTRA_PACKAGES="$(BENCH_PACKAGES)"
	./build/mink-bench

clean:
	rm -rf build build-debug build-asan
