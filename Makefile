# A thin wrapper over CMake presets so that a fresh Debian 12 machine needs two commands:
#   make run    install what is missing, build the release preset, serve the demo scene on :7777
#               (GAME=ball or GAME=range: an example game of examples/ instead)
#   make test   install what is missing, build the debug and asan presets, run every test in both,
#               then run each fuzz target for 30 s from a fixed seed
#   make fuzz   install clang, build the libFuzzer targets, run each for FUZZ_SECONDS (60)
#   make valgrind  every Check suite and corpus replay of the debug build under valgrind
# Flags for the server: make run ARGS="--port 7800 --log-level debug"

# libncurses-dev: mink-client's view; tmux: the client's integration test drives it in one.
# libwebsockets-evlib-uv: the plugin that runs libwebsockets on a libuv loop (the HTTP port);
# python3-yaml: the test that reads the Agones manifests in deploy/; libssl-dev: libcrypto's
# HMAC-SHA256 for connect tokens (--token-key); chromium, chromium-driver and python3-selenium:
# the web viewer's test in a headless browser (openssl makes its certificate for the https run);
# liblua5.4-dev: a game's rules in Lua 5.4 (server/rules).
DEB_PACKAGES := gcc make cmake pkg-config libuv1-dev libcjson-dev check libncurses-dev tmux \
                libwebsockets-dev libwebsockets-evlib-uv libcurl4-openssl-dev libssl-dev python3 \
                python3-yaml chromium chromium-driver python3-selenium openssl liblua5.4-dev
# The peer libraries mink-bench compares against (optional for every other target).
BENCH_PACKAGES := libchipmunk-dev libccd-dev
# libFuzzer comes with clang's runtime libraries (a recommendation apt would skip here).
FUZZ_PACKAGES := clang libclang-rt-14-dev
FUZZ_TARGETS := fuzz_proto fuzz_world fuzz_scene fuzz_journal fuzz_token fuzz_players fuzz_rules \
                fuzz_gltf fuzz_obj
FUZZ_SECONDS ?= 60
FUZZ_SEED ?= 0 # 0: a new seed each run
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
JOBS := $(shell nproc 2>/dev/null || echo 2)
ARGS ?=
# make run GAME=ball: serve an example game of examples/ (its scene and its rules' script)
GAME ?=
GAME_ARGS := $(if $(GAME),--scene examples/$(GAME)/$(if $(filter range,$(GAME)),range,arena).json --script examples/$(GAME)/$(GAME).lua)

.PHONY: all deps build run test test-debug test-asan bench fuzz valgrind clean

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
	./build/mink-server $(GAME_ARGS) $(ARGS)

test: test-debug test-asan
	$(MAKE) fuzz FUZZ_SECONDS=30 FUZZ_SEED=1

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

# Each target starts from its committed seed corpus (tests/fuzz/corpus/<target>) and keeps what
# it finds in build-fuzz/corpus/<target>; a crash stops the run and leaves its input in
# build-fuzz/ (copy it to tests/fuzz/regressions/<target>/ once fixed, so ctest replays it).
fuzz:
	$(MAKE) deps EXTRA_PACKAGES="$(FUZZ_PACKAGES)"
	cmake --preset fuzz
	cmake --build --preset fuzz -j $(JOBS)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus/$$t; \
	  echo "== $$t for $(FUZZ_SECONDS) s"; \
	  ./build-fuzz/tests/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -max_len=8192 \
	    -dict=tests/fuzz/json.dict -artifact_prefix=build-fuzz/$$t- -print_final_stats=1 \
	    build-fuzz/corpus/$$t tests/fuzz/corpus/$$t > build-fuzz/$$t.log 2>&1; \
	  rc=$$?; \
	  grep -E "^(Done|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb))|ERROR|SUMMARY|fuzz check|artifact" build-fuzz/$$t.log; \
	  if [ $$rc -ne 0 ]; then echo "$$t failed: see build-fuzz/$$t.log"; exit 1; fi; \
	done

# CK_FORK=no keeps each suite in one process, so that valgrind sees every test and its leaks.
CHECK_SUITES := $(basename $(notdir $(wildcard tests/test_*.c)))
VALGRIND := valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9
valgrind:
	$(MAKE) deps EXTRA_PACKAGES="valgrind"
	cmake --preset debug
	cmake --build --preset debug -j $(JOBS)
	@mkdir -p build-debug/valgrind
	@for t in $(CHECK_SUITES); do \
	  printf '%s: ' $$t; \
	  CK_FORK=no $(VALGRIND) build-debug/tests/$$t > build-debug/valgrind/$$t.log 2>&1 || \
	    { echo "failed: see build-debug/valgrind/$$t.log"; exit 1; }; \
	  grep -h "ERROR SUMMARY" build-debug/valgrind/$$t.log | sed 's/^==[0-9]*== //'; \
	done
	@for t in $(FUZZ_TARGETS); do \
	  printf '%s: ' $$t; \
	  $(VALGRIND) build-debug/tests/fuzz/$${t}_replay tests/fuzz/corpus/$$t > build-debug/valgrind/$$t.log 2>&1 || \
	    { echo "failed: see build-debug/valgrind/$$t.log"; exit 1; }; \
	  grep -h "ERROR SUMMARY" build-debug/valgrind/$$t.log | sed 's/^==[0-9]*== //'; \
	done

clean:
	rm -rf build build-debug build-asan build-fuzz
