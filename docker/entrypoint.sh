#!/bin/sh
# The container's command: mcp-offload as an HTTP sidecar, configured by the environment.
#
#   MCP_OFFLOAD_CONFIG        config file (default /config/config.yaml: mount yours there)
#   MCP_OFFLOAD_LISTEN        [host:]port to serve on (default 0.0.0.0:8080)
#   MCP_OFFLOAD_ARTIFACT_DIR  artifact store (the image sets /artifacts, a volume); read by mcp-offload
#   MCP_OFFLOAD_AUTH_TOKEN    bearer token clients must send (required on 0.0.0.0 unless the config
#                             sets auth.tokens or auth.allowUnauthenticated); read by mcp-offload
#   MCP_OFFLOAD_SIGNING_KEY   key of the signed download links (default: random per start)
#   MCP_OFFLOAD_LOG_LEVEL     trace ... silent (default info)
#   MCP_OFFLOAD_BIN           the mcp-offload command (default mcp-offload; tests point it at dist/cli.js)
#
# Arguments: none (serve), extra mcp-offload options (appended), "validate" or "gc" (run that
# subcommand on the same config), or any other command (run instead, e.g. "sh").
set -eu

BIN="${MCP_OFFLOAD_BIN:-mcp-offload}"
CONFIG="${MCP_OFFLOAD_CONFIG:-/config/config.yaml}"
LISTEN="${MCP_OFFLOAD_LISTEN:-0.0.0.0:8080}"
LOG_LEVEL="${MCP_OFFLOAD_LOG_LEVEL:-info}"

need_config() {
  if [ ! -r "$CONFIG" ]; then
    echo "mcp-offload: no readable config at $CONFIG; mount one (-v \$PWD/config.yaml:/config/config.yaml:ro) or set MCP_OFFLOAD_CONFIG" >&2
    exit 78 # EX_CONFIG
  fi
}

case "${1:-}" in
  validate | gc)
    need_config
    sub="$1"
    shift
    # shellcheck disable=SC2086 # BIN may be "node /path/cli.js"
    exec $BIN "$sub" --config "$CONFIG" "$@"
    ;;
  -h | --help | -v | --version)
    # shellcheck disable=SC2086
    exec $BIN "$@"
    ;;
  "" | -*) ;;
  *) exec "$@" ;;
esac

need_config
# What the container found, before it serves: whether clients get a token (never the token itself), and whether
# every stdio server's command is in the image (validate checks them; a missing one is the usual first-start mistake).
if [ -n "${MCP_OFFLOAD_AUTH_TOKEN:-}" ]; then
  echo "mcp-offload: clients authenticate with the token in MCP_OFFLOAD_AUTH_TOKEN (read it back: docker exec <container> printenv MCP_OFFLOAD_AUTH_TOKEN)" >&2
fi
# shellcheck disable=SC2086
if ! $BIN validate --config "$CONFIG"; then
  echo "mcp-offload: serving anyway; a server whose command is not in this image stays down: add it in a derived image or run it with npx (docs/docker.md)" >&2
fi
# exec: mcp-offload gets the container's SIGTERM itself and shuts down gracefully.
# shellcheck disable=SC2086
exec $BIN --config "$CONFIG" --http "$LISTEN" --log-level "$LOG_LEVEL" "$@"
