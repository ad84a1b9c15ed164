"""A page's parameters as papermill gives them: ``-p reuse false`` arrives as a string."""


def test_reuse_false_as_a_string_recomputes(tmp_path, monkeypatch):
    """papermill's ``-p reuse false`` arrives as the string "false": the page recomputes."""
    import anchorkit.pages.page as page
    from anchorkit.pages.page import study_page
    from anchorkit.engine.request import request

    calls = []
    real = page.compute_study
    monkeypatch.setattr(page, "compute_study", lambda *a: calls.append(a[2].reuse) or real(*a))
    kw = dict(profile="quick", reports_dir=tmp_path / "r", store_dir=tmp_path / "s", progress="no")
    study_page("control", request([2], **kw))
    first = (tmp_path / "r" / "control" / "provenance.json").read_bytes()
    study_page("control", request([2], reuse="true", **kw))
    assert (tmp_path / "r" / "control" / "provenance.json").read_bytes() == first  # reused
    study_page("control", request([2], reuse="false", **kw))
    assert calls == [True, True, False]
    assert (tmp_path / "r" / "control" / "provenance.json").read_bytes() != first  # recomputed
