# syntax=docker/dockerfile:1
# The operator's image for those who build with a container engine. `cargo xtask image` builds
# the same image without one (see README.md, "The image"); this file does what it does:
# a static release binary of the toolchain's own target, alone in an empty image as
# /manager, run as 65532:65532, with the same OCI labels.
#
#   docker build -t memcached-operator:0.1.0 \
#     --build-arg REVISION=$(git rev-parse HEAD) \
#     --build-arg SOURCE=$(git remote get-url origin) .
#
# The toolchain is the one this repository is built with (rustc 1.95.0).

ARG RUST_VERSION=1.95.0

FROM rust:${RUST_VERSION}-bookworm AS build
# PROJECT.toml's operator package and binary.
ARG PACKAGE=memcached
ARG BIN=memcached
WORKDIR /build
COPY . .
# The flags of `cargo xtask image`: glibc linked statically (-C target-feature=+crt-static on
# an explicit --target keeps it off build scripts and proc macros) and the build's paths
# remapped, so that nothing in the binary names this machine.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/build/target \
    set -eu; \
    triple="$(rustc -vV | sed -n 's/^host: //p')"; \
    export CARGO_ENCODED_RUSTFLAGS="$(printf -- '-Ctarget-feature=+crt-static\037--remap-path-prefix=/build=/build\037--remap-path-prefix=/usr/local/cargo=/cargo\037--remap-path-prefix=/build/target=/target')"; \
    cargo build --release --locked --target "$triple" -p "$PACKAGE" --bin "$BIN"; \
    cp "target/$triple/release/$BIN" /manager; \
    if readelf -l /manager | grep -q INTERP; then echo "/manager is not static" >&2; exit 1; fi

FROM scratch
ARG SOURCE=unknown
ARG REVISION=unknown
ARG VERSION=0.1.0
ARG TITLE=memcached-operator
LABEL org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.title="${TITLE}"
COPY --from=build --chown=65532:65532 --chmod=0755 /manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
