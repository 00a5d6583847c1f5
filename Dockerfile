# homegate: built with Swift, run on slim Debian with libmosquitto, SQLite and libavahi-client (the
# HomeKit bridge's DNS-SD advertisement, through the host's avahi-daemon when it is reachable).
# The Swift image must be at least as new as the newest swift-tools-version among the resolved
# dependencies (6.2 today); scripts/check-image.sh checks that, and builds this context natively.
FROM swift:6.3-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libmosquitto-dev libsqlite3-dev libavahi-client-dev libqrencode-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
RUN swift build -c release --product homegate --static-swift-stdlib \
    && swift build -c release --product homegate-simulator --static-swift-stdlib \
    && mkdir /out && cp .build/release/homegate .build/release/homegate-simulator /out/

FROM debian:bookworm-slim
# The commit for `homegate --version`: compose passes HOMEGATE_COMMIT from the shell
# (HOMEGATE_COMMIT=$(git rev-parse --short HEAD) docker compose up -d --build; docker build --build-arg works too).
ARG HOMEGATE_COMMIT=""
RUN mkdir -p /usr/local/share/homegate && echo "$HOMEGATE_COMMIT" > /usr/local/share/homegate/commit
RUN apt-get update && apt-get install -y --no-install-recommends libmosquitto1 libsqlite3-0 libavahi-client3 libqrencode4 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data homegate && mkdir -p /data && chown homegate /data
COPY --from=build /out/ /usr/local/bin/
COPY docker/homegate.yaml /etc/homegate/homegate.yaml
# Every subcommand (run, doctor, health, validate, export, import) reads it without --config.
ENV HOMEGATE_CONFIG=/etc/homegate/homegate.yaml
COPY mappings /etc/homegate/mappings
COPY demo /etc/homegate/demo
COPY web /usr/local/share/homegate/web
USER homegate
WORKDIR /data
VOLUME /data
# Ready means connected to the broker, the database written and every mapping file loaded.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["homegate", "health", "--timeout", "8"]
ENTRYPOINT ["homegate"]
CMD ["run"]
