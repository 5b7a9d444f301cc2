# syntax=docker/dockerfile:1
# MLDR Explorer, built with the openblas tag (its eigen-decompositions go to
# LAPACK's dsyevd in OpenBLAS; see docs/BENCHMARKS.md), on Debian slim with
# OpenBLAS, running as non-root, with its data directory on a volume.
#
#   docker build -t mldr .
#   docker run -p 8080:8080 -v mldr-data:/data mldr

FROM golang:1.26-bookworm AS build
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libopenblas-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -tags openblas -trimpath -ldflags="-s -w" -o /out/webapp ./cmd/webapp \
 && mkdir -p /out/data

FROM debian:bookworm-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libopenblas0-pthread \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/webapp /webapp
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
# Inside a container the server must listen on every interface to be
# reachable through the published port, so it needs an access token:
# docker run -e MLDR_TOKEN=... (or mount a file and set MLDR_TOKEN_FILE).
# Without one it refuses to start and says why.
ENV MLDR_ADDR=0.0.0.0:8080 \
    MLDR_DATA_DIR=/data
EXPOSE 8080
VOLUME ["/data"]
# The image has no curl: the binary asks its own /readyz (-healthcheck):
# healthy when the process answers, its database (shared mode) answers and
# its data directory takes new files. /healthz is liveness alone.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/webapp", "-healthcheck"]
ENTRYPOINT ["/webapp"]
