#!/usr/bin/env bash
# Proves without a Docker engine what `docker build` and `docker compose` would: compose.yaml is
# valid, the Dockerfile's Swift image is new enough for every dependency, and the exact build
# context the Dockerfile copies (honouring .dockerignore) builds with its own commands.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

# The compose files read .env: check them in a clone-like folder whose .env is the example's.
project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
for entry in compose.yaml compose.existing-broker.yaml compose.homekit.yaml Dockerfile docker demo mappings web; do ln -s "$PWD/$entry" "$project/$entry"; done
cp .env.example "$project/.env"
for file in compose.yaml compose.existing-broker.yaml; do
  (cd "$project" && HOMEGATE_HTTP_TOKEN=check docker-compose -f "$file" config -q)
  (cd "$project" && HOMEGATE_HTTP_TOKEN=check docker-compose -f "$file" --profile demo config -q)
  echo "$file: valid with .env.example (docker-compose config)"
done
(cd "$project" && docker-compose -f compose.existing-broker.yaml -f compose.homekit.yaml config -q)
echo "compose.existing-broker.yaml with compose.homekit.yaml: valid with .env.example (docker-compose config)"
# The docs' plain `docker compose` takes the install's files from COMPOSE_FILE in .env.
echo "COMPOSE_FILE=compose.existing-broker.yaml:compose.homekit.yaml" >> "$project/.env"
resolved=$(cd "$project" && env -u COMPOSE_FILE docker-compose config)
if ! grep -q 'network_mode: host' <<< "$resolved" || ! grep -q 'HOMEGATE_HAP_ENABLED' <<< "$resolved" || grep -q '^  mosquitto:' <<< "$resolved"; then
  echo "docker-compose did not take the files COMPOSE_FILE in .env names" >&2
  exit 1
fi
echo "plain docker-compose config: the files of COMPOSE_FILE in .env (compose.existing-broker.yaml:compose.homekit.yaml)"
# compose.yaml publishes the web page, so it must not start without a token.
if (cd "$project" && env -u HOMEGATE_HTTP_TOKEN docker-compose -f compose.yaml config -q 2>/dev/null); then
  echo "compose.yaml starts without HOMEGATE_HTTP_TOKEN, but its web page listens beyond loopback" >&2
  exit 1
fi
echo "compose.yaml: refuses to start without HOMEGATE_HTTP_TOKEN"

swift package resolve >/dev/null
python3 scripts/check-image.py toolchain .build/checkouts

context=$(mktemp -d)
trap 'rm -rf "$context" "$project"' EXIT
commands=$(python3 scripts/check-image.py stage "$context")
echo "build context: $(find "$context" -type f | wc -l) files staged from the Dockerfile's COPY lines"
cd "$context"
while IFS= read -r command; do
  echo "building as the Dockerfile does: $command"
  bash -c "$command" > build.log 2>&1 || { tail -30 build.log; echo "the image's build step failed: $command" >&2; exit 1; }
done <<< "$commands"
echo "image build proof passed in $((SECONDS - start)) s"
