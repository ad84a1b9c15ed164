"""One command line, ``python -m anchorkit <verb>``: its help lists every verb, a bad verb is one
line naming it, each verb runs its command with the reader's options (and the verb's own), and
every command module (``anchorkit/commands/``, a study's ``commands/``) is a verb's, and every
tool left in ``scripts/`` is named here as no reader's command."""

import subprocess
import sys
from pathlib import Path

import pytest

from anchorkit.__main__ import READER, STUDIES, VERBS, main, resolve

ROOT = Path(__file__).resolve().parents[2]

# the scripts no verb runs, each with why it is not a reader's command
NOT_A_READERS = {
    "book_assets": "a step of `build`, which runs it",
    "colab_cell": "a maintainer's: writes the Colab set-up cell into the notebooks",
    "repository": "a maintainer's: reads or sets the repository's URL in _config.yml",
    "seed_trip": "a measurement of the code's layering, read by a test",
}


def test_the_help_lists_every_verb_and_the_verbs_are_the_readers_first():
    r = subprocess.run([sys.executable, "-m", "anchorkit", "--help"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    listed = [line.split()[0] for line in r.stdout.splitlines() if line.startswith("  ")]
    assert listed == [*READER, *STUDIES]
    assert {"build", "rerun", "train", "compute", "publish", "check"} <= set(READER)


@pytest.mark.parametrize("argv, said", [
    ([], "usage: python -m anchorkit <verb>"),
    (["rerun-study"], "unknown verb 'rerun-study': expected one of build, "),
    (["build", "--fast"], "build takes no options (got --fast)"),
    (["rejudge-diagnosis", "--seeds", "3"], "rejudge-diagnosis takes no options"),
])
def test_a_bad_verb_or_option_is_one_line_naming_it(argv, said):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert said in str(stop.value.code)


def test_a_verb_passes_its_own_options_before_the_readers():
    assert resolve(["compute", "control"])[2] == ["--compute", "control"]
    assert resolve(["rerun", "control", "--seeds", "712"])[2] == ["control", "--seeds", "712"]


def test_a_verb_runs_its_command_and_its_usage_is_the_commands(capsys):
    main(["compute", "--help"])  # execute_studies reads --compute --help: its usage, no work
    assert "usage: python -m anchorkit pages" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["train", "--seeds", "-1"])
    assert stop.value.code not in (0, None)
    assert "python -m anchorkit train: error: parameter 'seeds'" in capsys.readouterr().err


def test_every_command_is_a_verbs_and_every_script_is_named_as_no_readers():
    scripts = {p.stem for p in (ROOT / "scripts").glob("*.py")} - {"__init__"}
    assert scripts == set(NOT_A_READERS)
    pkg = ROOT / "anchorkit"
    commands = {".".join(p.relative_to(ROOT).with_suffix("").parts)
                for p in [*pkg.glob("commands/*.py"), *pkg.glob("studies/*/commands/*.py")]
                if p.stem != "__init__"}
    assert commands == {v.module for v in VERBS.values() if v.module}
