#!/usr/bin/env bash
# One command for a GPU machine (see benchmarks/gpu_check.py): environment, requires_gpu
# tests, the tutorials' CUDA parts, bench_gpu.py beside torch, one summary file.
#   benchmarks/gpu_check.sh [--out DIR]
set -u
cd "$(dirname "$0")/.." || exit 1
exec timeout 480 "${PYTHON:-python3}" benchmarks/gpu_check.py "$@"
