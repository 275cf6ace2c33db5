# syntax=docker/dockerfile:1
#
# The function's runtime image: a static `fn-hcl` binary (musl) on
# distroless/static, running as a non-root user. Build natively per
# platform, e.g. `docker buildx build --platform linux/amd64,linux/arm64 .`.

FROM rust:1.95-bookworm AS build
# The commit `fn-hcl version` reports (the build has no .git).
ARG FNHCL_GIT_COMMIT=unknown
ENV FNHCL_GIT_COMMIT=$FNHCL_GIT_COMMIT
RUN apt-get update \
 && apt-get install -y --no-install-recommends musl-tools cmake clang \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so source changes don't refetch the registry.
COPY Cargo.toml Cargo.lock ./
COPY crates crates
# A plain static release build by default. `--build-arg PGO=1` builds
# profile-guided instead (scripts/pgo-build.sh, docs/notes/pgo.md): an
# instrumented build runs a training workload (the benchmark driver, the
# render cases, the expression corpora, the server answering calls), then
# the release build is laid out by those profiles; two builds and the
# training, about 20 minutes on 2 cores.
ARG PGO=0
RUN target="$(uname -m)-unknown-linux-musl" \
 && rustup target add "$target" \
 && if [ "$PGO" = 1 ]; then rustup component add llvm-tools; fi \
 && cargo fetch --locked --target "$target"
COPY scripts/pgo-build.sh scripts/
COPY examples examples
COPY tests/render tests/render
RUN target="$(uname -m)-unknown-linux-musl" \
 && export RUSTFLAGS="-C target-feature=+crt-static" CARGO_NET_OFFLINE=true \
 && if [ "$PGO" = 1 ]; then \
      scripts/pgo-build.sh --target "$target" --out /fn-hcl; \
    else \
      cargo build --release --locked -p fnhcl-cli --target "$target" \
      && cp "target/$target/release/fn-hcl" /fn-hcl; \
    fi \
 && /fn-hcl version

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /fn-hcl /fn-hcl
# Crossplane connects to the function on 9443; metrics are served on 8080.
EXPOSE 9443 8080
USER 65532:65532
# mimalloc gives freed pages back to the system at once instead of after
# 10 ms: with eight requests carrying 4 MB programs at once, the server's
# peak went from 443 to 339 MiB, and it stays within a 512 MiB limit
# under every hostile load of docs/benchmarks.md; throughput is the same.
ENV MIMALLOC_PURGE_DELAY=0
ENTRYPOINT ["/fn-hcl", "serve"]
