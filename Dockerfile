# homegate: build with the Swift toolchain, run on slim Debian with libmosquitto only.
FROM swift:6.1-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libmosquitto-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
RUN swift build -c release --product homegate --static-swift-stdlib \
    && swift build -c release --product homegate-simulator --static-swift-stdlib \
    && mkdir /out && cp .build/release/homegate .build/release/homegate-simulator /out/

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libmosquitto1 libsqlite3-0 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* && useradd --system --home /data homegate && mkdir -p /data && chown homegate /data
COPY --from=build /out/ /usr/local/bin/
COPY mappings /etc/homegate/mappings
COPY docker/homegate.yaml /etc/homegate/homegate.yaml
COPY simulator/devices.json /etc/homegate/devices.json
USER homegate
WORKDIR /data
ENTRYPOINT ["homegate"]
CMD ["run", "--config", "/etc/homegate/homegate.yaml"]
