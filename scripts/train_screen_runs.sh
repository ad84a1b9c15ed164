#!/usr/bin/env bash
# Train the loss-rate screen's runs (falloff and control under plain Adam, seeds 800-839, 400
# epochs) into the run store, four seeds at a time in each of two single-thread processes, so that
# finished runs accumulate; finished runs are skipped and unfinished ones resume from their last
# checkpoint, so it can be rerun after a stop. Niced: it yields the cores to anything else.
# The notebook notebooks/loss-rate-screen.ipynb then loads these runs. Logs: logs/screen_{a,b}.log.
set -u
cd "$(dirname "$0")/.."
mkdir -p logs
run() {
  for first in $FIRSTS; do
    nice -n 19 .venv/bin/python -m scripts.train_runs --threads 1 \
      --seeds $(seq "$first" $((first + 3))) --recipes control falloff --optimizers adam || return 1
  done
}
# 820 runs last in the second process: it balances the two after the first session's progress
FIRSTS="800 804 808 812 816" run > logs/screen_a.log 2>&1 &
FIRSTS="824 828 832 836 820" run > logs/screen_b.log 2>&1 &
wait
