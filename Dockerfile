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
RUN target="$(uname -m)-unknown-linux-musl" \
 && rustup target add "$target" \
 && cargo fetch --locked --target "$target"
RUN target="$(uname -m)-unknown-linux-musl" \
 && RUSTFLAGS="-C target-feature=+crt-static" \
    cargo build --release --locked --offline -p fnhcl-cli --target "$target" \
 && cp "target/$target/release/fn-hcl" /fn-hcl \
 && /fn-hcl version

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /fn-hcl /fn-hcl
# Crossplane connects to the function on 9443; metrics are served on 8080.
EXPOSE 9443 8080
USER 65532:65532
ENTRYPOINT ["/fn-hcl", "serve"]
