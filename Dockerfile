# Mink in a container: the build stage compiles and runs the whole test suite; the runtime
# stage holds only the two binaries and their runtime libraries, and runs as a non-root user.

FROM debian:bookworm-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      gcc libc6-dev make cmake pkg-config libuv1-dev libcjson-dev check libncurses-dev tmux \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake --preset release \
 && cmake --build --preset release -j "$(nproc)" \
 && ctest --preset release -j "$(nproc)"

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libuv1 libcjson1 libncursesw6 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin mink
COPY --from=build /src/build/mink-server /src/build/mink-client /usr/local/bin/
USER mink
EXPOSE 7777
# A real round trip: mink-client connects, sends a ping and waits for the pong.
HEALTHCHECK --interval=10s --timeout=4s --start-period=3s --retries=3 \
  CMD ["mink-client", "--ping", "--host", "127.0.0.1", "--port", "7777"]
CMD ["mink-server"]
