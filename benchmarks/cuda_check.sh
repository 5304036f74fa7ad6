#!/usr/bin/env bash
# Checks the trainer's GPU path on a machine with a CUDA GPU; exits non-zero at the first failure.
# OUT_DIR (default runs/cuda_check) is relative to the repository root.
#
#   bash benchmarks/cuda_check.sh [OUT_DIR]
#
# Environment: PYTHON (default python) picks the interpreter, WORKERS (default: the CPU count) the
# rollout workers of the second speed measurement.
#
# 1. the smoke preset trains with --device cuda, and --device auto picks the GPU;
# 2. a GPU run resumes on the GPU, and its checkpoint resumes on the CPU (and the other way round);
# 3. the GPU-trained policy plays in the arena (checkpoint agents run on the CPU);
# 4. benchmarks/train_speed.py with the default preset, learner on the CPU and on the GPU, with the
#    preset's 2 rollout workers and with WORKERS;
# 5. the trainer tests (tests/test_train.py, the default device auto) pass with the learner on the GPU,
#    resume equivalence included (needs the dev extra: pip install -e ".[dev]").
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
OUT=${1:-runs/cuda_check}
WORKERS=${WORKERS:-$(nproc)}
mkdir -p "$OUT"

step() { printf '\n== %s\n' "$*"; }
expect() {  # expect PATTERN FILE: the run's log must say PATTERN
    grep -q -- "$1" "$2" || { echo "FAILED: '$1' not in $2" >&2; exit 1; }
}

step "GPU"
$PYTHON -c 'import torch; assert torch.cuda.is_available(), "PyTorch sees no CUDA GPU"; print(torch.__version__, torch.cuda.get_device_name(0))'

step "smoke preset, --device cuda"
$PYTHON train.py --config smoke --device cuda --out-dir "$OUT" --run-name gpu 2>&1 | tee "$OUT/gpu.log"
expect "learner on cuda" "$OUT/gpu.log"

step "smoke preset, --device auto"
$PYTHON train.py --config smoke --device auto --out-dir "$OUT" --run-name auto --updates 1 2>&1 | tee "$OUT/auto.log"
expect "learner on cuda" "$OUT/auto.log"

step "resume the GPU run on the GPU, then on the CPU"
$PYTHON train.py --resume "$OUT/gpu" --updates 5 --device cuda 2>&1 | tee "$OUT/gpu_resume.log"
expect "learner on cuda" "$OUT/gpu_resume.log"
$PYTHON train.py --resume "$OUT/gpu" --updates 6 --device cpu 2>&1 | tee "$OUT/cpu_resume.log"
expect "learner on cpu" "$OUT/cpu_resume.log"

step "a CPU run resumed on the GPU"
$PYTHON train.py --config smoke --device cpu --out-dir "$OUT" --run-name cpu --updates 2 2>&1 | tee "$OUT/cpu.log"
$PYTHON train.py --resume "$OUT/cpu" --updates 3 --device cuda 2>&1 | tee "$OUT/cpu_to_gpu.log"
expect "learner on cuda" "$OUT/cpu_to_gpu.log"

step "the GPU-trained policy in the arena"
$PYTHON -m agents.arena "checkpoint:$OUT/gpu/policy.pt" random --deals 20 --workers 2 --out "$OUT/arena"

step "training speed, default preset, learner on the CPU and on the GPU"
for device in cpu cuda; do
    $PYTHON benchmarks/train_speed.py --updates 4 --set device=$device
    $PYTHON benchmarks/train_speed.py --updates 4 --set device=$device --set workers="$WORKERS"
done

step "trainer tests with the learner on the GPU"
$PYTHON -m pytest -q -p no:cacheprovider tests/test_train.py
echo "cuda_check: all passed"
