# Mink in a container: the build stage compiles and runs the whole test suite; the runtime
# stage holds only the two binaries and their runtime libraries, and runs as a non-root user.
# Ports: 7777 the game (TCP), 7778 HTTP (the web viewer at /, WebSocket players at /ws, GET
# /metrics, /livez, /healthz, /readyz). The test suite's browser test needs chromium,
# chromium-driver, python3-selenium and openssl in the build stage only.
# A save survives the container on a volume: docker run -v mink-data:/data mink \
#   mink-server --save /data/world (kept as it runs; the same command brings it back).
# The example games are in /usr/local/share/mink/examples (docker run -p 7777:7777 -p 7778:7778
# mink mink-server --scene /usr/local/share/mink/examples/ball/arena.json --script
# /usr/local/share/mink/examples/ball/ball.lua); a studio's own rules come in on a volume:
#   docker run -v "$PWD/game:/game:ro" mink mink-server --script /game/rules.lua
# A level (a scene file and the glTF or OBJ files it names, beside it) comes from a mounted
# folder: docker run -v "$PWD/mylevel:/levels:ro" mink mink-server --scene /levels/scene.json.
# The example level is in the image: mink-server --scene /usr/local/share/mink/levels/scene.json.

FROM debian:bookworm-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      gcc libc6-dev make cmake pkg-config libuv1-dev libcjson-dev check libncurses-dev tmux \
      libwebsockets-dev libwebsockets-evlib-uv libcurl4-openssl-dev libssl-dev python3 python3-yaml \
      chromium chromium-driver python3-selenium openssl liblua5.4-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake --preset release \
 && cmake --build --preset release -j "$(nproc)" \
 && ctest --preset release -j "$(nproc)"

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libuv1 libcjson1 \
      libncursesw6 libwebsockets17 libwebsockets-evlib-uv libcurl4 libssl3 liblua5.4-0 curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin mink \
 && mkdir /data && chown mink /data
COPY --from=build /src/build/mink-server /src/build/mink-client /usr/local/bin/
COPY --from=build /src/examples /usr/local/share/mink/examples
COPY --from=build /src/examples/levels/scene.json /src/examples/levels/level.glb \
     /usr/local/share/mink/levels/
USER mink
VOLUME /data
EXPOSE 7777 7778
# /livez: 200 while the world's clock keeps time, 503 once it has stalled (--stall-seconds).
HEALTHCHECK --interval=10s --timeout=4s --start-period=3s --retries=3 \
  CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:7778/livez"]
CMD ["mink-server"]
