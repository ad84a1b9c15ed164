from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import torch

from anchorkit.core.config import ParameterError
from anchorkit.engine.registry import STUDIES, study_pairs, study_runs
from anchorkit.studies.reference_baseline import spikes_tables
from anchorkit.studies.rotated_basis import rotated_tables
from anchorkit.engine.pairs import measure_pair
from anchorkit.core.train import train


def test_studies_name_their_runs_and_share_twins_by_hash():
    seeds = [704, 705]
    counts = {s: len(study_runs(s, seeds)) for s in STUDIES}
    assert counts == {"control": 2, "split-anti-seeds": 6, "rotated-basis": 8,
                      "reference-baseline": 4, "loss-rate-screen": 4}
    hashes = {s: {c.hash for c in study_runs(s, seeds)} for s in STUDIES}
    assert hashes["control"] <= hashes["split-anti-seeds"]
    assert hashes["reference-baseline"] <= hashes["rotated-basis"]
    assert hashes["reference-baseline"] <= hashes["split-anti-seeds"] | hashes["control"]
    for p in study_pairs("rotated-basis", seeds):
        assert p.anchored.seed == p.control.seed and p.anchored.optimizer == p.control.optimizer
    assert all(c.epochs == 4 for c in study_runs("control", seeds, "quick"))


@pytest.mark.parametrize("kwargs, name", [({"study": "nope"}, "study"), ({"profile": "huge"}, "profile"),
                                          ({"seeds": [1.5]}, "seeds")])
def test_bad_study_parameters_are_named(kwargs, name):
    args = {"study": "control", "seeds": [1], "profile": "quick", **kwargs}
    with pytest.raises(ParameterError, match=f"'{name}'"):
        study_pairs(args["study"], args["seeds"], args["profile"])


@pytest.fixture(scope="module")
def quick_pair():
    pair = study_pairs("rotated-basis", [3], "quick")[0]
    a, c = train([pair.anchored, pair.control], progress=False)
    return pair, a.final, c.final


@pytest.mark.retrain
def test_measure_pair_tables_hold_together(quick_pair):
    pair, a, c = quick_pair
    t = measure_pair(pair, a, c, sweep=True, chunk=32)
    res, dose = t["results"].iloc[0], t["dose"]
    assert list(dose["dose"]) == [0.25, 0.5, 0.75, 1.0]
    np.testing.assert_allclose(dose["net_removal"], dose["raw_removal"] - dose["control_drop"])
    assert res["spill"] == pytest.approx(dose["spill"].max())
    shares = t["spectra"].groupby(["role", "basis"])[["share", "syntax_share"]].sum()
    np.testing.assert_allclose(shares, 1.0, rtol=1e-5)
    d = t["directions"]
    assert d.groupby("role").size().tolist() == [63 + 64 + 16 + 1] * 2
    for role in ("anchored", "control"):
        for basis in ("axes", "rotated"):  # a spike's index and cos(e1, spike) exist only with it
            has = res[f"{role}_has_spike_{basis}"]
            assert pd.isna(res[f"{role}_spike_{basis}"]) != has
            assert np.isnan(res[f"{role}_cos_e1_spike_{basis}"]) != has
    if res["anchored_has_spike_axes"]:
        assert res["anchored_spike_axes"] != 0  # never e1 in an anchored run
    assert res["removal_net_of_reference"] == pytest.approx(
        res["raw_removal"] - res["anchored_reference_baseline"], nan_ok=True)


@pytest.mark.retrain
def test_cached_answers_give_the_tables_of_a_fresh_measurement(quick_pair, tmp_path):
    """The tables derived from the store's cached answers are those measured directly."""
    from anchorkit.measures.answers import PARTS, cached_answers
    from anchorkit.core.store import RunStore

    pair, a, c = quick_pair
    store = RunStore(tmp_path)
    answers = tuple(cached_answers(cfg, st, PARTS, store, chunk=16)
                    for cfg, st in ((pair.anchored, a), (pair.control, c)))
    import anchorkit.measures.answers as answers_mod

    real, answers_mod.predict = answers_mod.predict, None  # read back: no forward may run
    try:
        again = tuple(cached_answers(cfg, st, PARTS, store)
                      for cfg, st in ((pair.anchored, a), (pair.control, c)))
    finally:
        answers_mod.predict = real
    for x, y in zip(answers, again):
        assert x.keys() == y.keys() and all(torch.equal(x[k], y[k]) for k in x)
    direct = measure_pair(pair, a, c, sweep=True, chunk=32)
    cached = measure_pair(pair, a, c, sweep=True, answers=again)
    for name in direct:
        pd.testing.assert_frame_equal(direct[name], cached[name])


def test_a_run_paired_with_itself_has_no_net_removal_or_spill(quick_pair):
    pair, a, c = quick_pair
    self_pair = type(pair)(pair.control, pair.control)
    res = measure_pair(self_pair, c, c, sweep=False)["results"].iloc[0]
    assert res["spill"] == 0 and res["task_change"] == 0
    assert res["net_removal"] == 0 or np.isnan(res["net_removal"])
    for basis in ("axes", "rotated"):  # the same spike, or none on either side: never moved
        assert pd.isna(res[f"moved_{basis}"]) or not res[f"moved_{basis}"]


@pytest.mark.retrain
def test_rotated_runs_sit_beside_their_stored_twins(quick_pair):
    pair, a, c = quick_pair
    twin = study_pairs("rotated-basis", [3], "quick")[1]
    assert (twin.anchored.optimizer, twin.anchored.seed) == ("adam", 3)
    a2, c2 = train([twin.anchored, twin.control], progress=False)
    t1 = measure_pair(pair, a, c, sweep=True, chunk=32)
    t2 = measure_pair(twin, a2.final, c2.final, sweep=True, chunk=32)
    tables = {k: pd.concat([t1[k], t2[k]], ignore_index=True) for k in t1}
    out = rotated_tables(tables)
    e2 = out["e2"].iloc[0]
    assert e2["raw_removal_rotated"] == t1["results"]["raw_removal"].iloc[0]
    assert e2["raw_removal_stored"] == t2["results"]["raw_removal"].iloc[0]
    assert "spill_rotated" in out["e2"] and "anchored_spike_share_rotated_rotated" in out["e3"]
    basis = out["basis"]
    # every run has 64 shares per basis, a cost for every swept direction and for e1 (axis 0)
    assert basis.groupby(["run", "role", "basis"]).size().to_dict() == {
        (r, role, b): n for r in ("falloff-adam-3", "falloff-rotated-3") for role in
        ("anchored", "control") for b, n in (("axes", 64), ("random", 16), ("rotated", 64))}
    axes = basis[(basis.basis == "axes") & (basis.run == "falloff-rotated-3")]
    assert axes["share"].notna().all() and axes["cost"].notna().all()
    spikes = spikes_tables({"results": t2["results"]})["spikes"]
    assert list(spikes["run"]) == [twin.anchored.name, twin.control.name]
    pd.testing.assert_series_equal(spikes["spike_axes"].iloc[:1],
                                   t2["results"]["anchored_spike_axes"], check_names=False)


@pytest.mark.retrain
def test_a_study_computes_each_runs_answers_once(tmp_path, monkeypatch):
    import anchorkit.measures.answers as answers_mod
    import anchorkit.engine.protocol as protocol
    import anchorkit.engine.registry as studies
    from anchorkit.core.store import RunStore

    store = RunStore(tmp_path / "store")
    calls = []
    real = answers_mod.predict
    monkeypatch.setattr(answers_mod, "predict",
                        lambda cfg, *a, **k: calls.append(cfg.name) or real(cfg, *a, **k))
    monkeypatch.setattr(studies, "STUDIES", {n: replace(s, sweep=False) for n, s in STUDIES.items()})  # the cache, not sweeps
    first = protocol.run_study("reference-baseline", [5], "quick", epochs=1, store=store,
                              progress=False)
    second = protocol.run_study("rotated-basis", [5], "quick", epochs=1, store=store,
                               progress=False)
    # reference-baseline's two runs, then only rotated-basis's two rotated runs
    assert sorted(calls) == sorted(["falloff-adam-5", "control-adam-5", "falloff-rotated-5",
                                    "control-rotated-5"])
    stored = second["results"][second["results"].optimizer == "adam"].reset_index(drop=True)
    pd.testing.assert_frame_equal(stored, first["results"])


@pytest.mark.retrain
def test_a_changed_measure_re_derives_the_tables_without_an_edited_forward(tmp_path, monkeypatch):
    """A definition-only change (here: removal doubled) leaves the cached answers valid: the
    study re-derives its tables with the new definition and runs no edited forward."""
    import anchorkit.measures.measure as measure
    import anchorkit.engine.pairs as pairs
    import anchorkit.measures.answers as answers_mod
    import anchorkit.engine.protocol as protocol
    import anchorkit.engine.registry as studies
    from anchorkit.core.store import RunStore

    store = RunStore(tmp_path / "store")
    monkeypatch.setattr(studies, "STUDIES", {n: replace(s, sweep=True) for n, s in STUDIES.items()})
    kw = dict(profile="quick", epochs=1, store=store, progress=False)
    before = protocol.run_study("reference-baseline", [5], **kw)

    def no_forward(*a, **k):
        raise AssertionError("an edited forward ran although the answers were cached")

    monkeypatch.setattr(answers_mod, "predict", no_forward)
    monkeypatch.setattr(measure, "edited_predictions", no_forward)
    monkeypatch.setattr(pairs, "removal", lambda d, s: 2 * (d[..., 1] / s[..., 1]))
    after = protocol.run_study("reference-baseline", [5], **kw)
    np.testing.assert_allclose(after["results"]["raw_removal"],
                               2 * before["results"]["raw_removal"])
    pd.testing.assert_frame_equal(after["spectra"], before["spectra"])


def test_reuse_reads_tables_written_for_the_same_runs_and_only_those(tmp_path, monkeypatch):
    import anchorkit.engine.executor as executor
    import anchorkit.engine.protocol as protocol
    from anchorkit.core.store import RunStore

    kw = dict(profile="quick", epochs=1, reports_dir=tmp_path / "reports",
              store=RunStore(tmp_path / "store"), progress=False)
    first = protocol.run_study("control", [6], **kw)

    def no_training(*a, **k):
        raise AssertionError("trained although the tables were there")

    monkeypatch.setattr(executor, "train_task", no_training)
    again = protocol.run_study("control", [6], reuse=True, **kw)
    assert again.keys() == first.keys()
    pd.testing.assert_frame_equal(again["results"], first["results"])
    with pytest.raises(AssertionError, match="trained"):  # other seeds: not the written tables
        protocol.run_study("control", [7], reuse=True, **kw)


def test_tables_at_other_doses_are_read_back_only_at_those_doses(tmp_path, monkeypatch):
    """A tweak of the analysis records its doses; the method's doses record nothing (the
    committed provenance keeps its bytes), and neither is reused for the other."""
    import anchorkit.engine.protocol as protocol
    from anchorkit.engine.provenance import read_provenance
    from anchorkit.core.store import RunStore

    kw = dict(profile="quick", epochs=1, reports_dir=tmp_path / "reports",
              store=RunStore(tmp_path / "store"), progress=False, scheduler="in-process")
    method = protocol.run_study("control", [6], **kw)
    assert "doses" not in read_provenance(tmp_path / "reports" / "control")
    tweak = protocol.run_study("control", [6], reuse=True, doses=[0.5, 1], **kw)
    assert read_provenance(tmp_path / "reports" / "control")["doses"] == [0.5, 1.0]
    assert list(tweak["dose"].dose) == [0.5, 1.0] and len(method["dose"]) == 4
    pd.testing.assert_frame_equal(tweak["dose"].reset_index(drop=True),
                                  method["dose"][method["dose"].dose.isin([0.5, 1.0])]
                                  .reset_index(drop=True))
    calls = []
    monkeypatch.setattr(protocol.Study, "graph", lambda *a, **k: calls.append(1) or 1 / 0)
    again = protocol.run_study("control", [6], reuse=True, doses=[0.5, 1], **kw)
    pd.testing.assert_frame_equal(again["dose"], tweak["dose"])
    with pytest.raises(ZeroDivisionError):  # the method's doses: not the tweak's tables
        protocol.run_study("control", [6], reuse=True, **kw)
    assert len(calls) == 1
    with pytest.raises(ParameterError, match="parameter 'doses'"):
        protocol.run_study("control", [6], doses=[1, 0.5], **kw)
