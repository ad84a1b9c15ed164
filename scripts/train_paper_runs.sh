#!/usr/bin/env bash
# Train the paper-scale runs of studies 1-4 (seeds 704-711, 400 epochs) into the run store, as two
# single-thread processes (the faster way on a 2-core CPU, see BENCHMARKS.md). Finished runs are
# skipped and unfinished ones resume from their last checkpoint, so it can be rerun after a stop.
# The notebooks then load these runs from the store. Logs: logs/paper_{a,b}.log.
set -u
cd "$(dirname "$0")/.."
mkdir -p logs
run() {
  for spec in "control adam" "falloff adam" "control rotated" "falloff rotated" "split-anti adam"; do
    set -- $spec
    .venv/bin/python -m scripts.train_runs --threads 1 --seeds $SEEDS --recipes "$1" \
      --optimizers "$2" || return 1
  done
}
SEEDS="704 705 706 707" run > logs/paper_a.log 2>&1 &
SEEDS="708 709 710 711" run > logs/paper_b.log 2>&1 &
wait
