"""The local Dask cluster: it listens on this machine only, keeps its scratch in the store, and
refuses a client without its credentials."""

import pytest


# ---------------------------------------------------------------------- the local cluster
@pytest.mark.slow
def test_the_local_cluster_listens_on_this_machine_only_with_its_scratch_in_the_store(
        tmp_path, monkeypatch):
    from anchorkit.engine.executor import DASHBOARD_ENV, local_cluster

    monkeypatch.setenv("ANCHORKIT_STORE", str(tmp_path / "store"))
    monkeypatch.delenv(DASHBOARD_ENV, raising=False)
    with local_cluster(1) as cluster:
        assert cluster.scheduler_address.startswith("tls://127.0.0.1:")
        assert "127.0.0.1" in cluster.dashboard_link
        assert (tmp_path / "store" / "dask-scratch-space").is_dir()


@pytest.mark.slow
@pytest.mark.cluster
def test_a_client_without_the_local_cluster_s_credentials_is_refused(tmp_path, monkeypatch):
    """Issue 67's second High probe: another account connected to the local cluster's scheduler
    and ran code in its workers. The cluster now speaks TLS with credentials only its process
    holds: a plain client, a client without credentials and one with other temporary credentials
    are refused (each tried from a process of its own, as another user would); this process's
    own client (``connect`` by address) runs a task."""
    import os
    import subprocess
    import sys

    from anchorkit.engine.executor import connect, local_cluster

    monkeypatch.setenv("ANCHORKIT_STORE", str(tmp_path / "store"))
    with local_cluster(1) as cluster:
        address = cluster.scheduler_address
        port = address.rsplit(":", 1)[1]
        for target, security in ((f"tcp://127.0.0.1:{port}", "None"), (address, "None"),
                                 (address, "Security.temporary()")):
            code = ("from distributed import Client\nfrom distributed.security import Security\n"
                    f"c = Client({target!r}, timeout=5, security={security})\n"
                    "print('ran', c.submit(sum, [1, 2]).result())")
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               timeout=120)
            assert r.returncode != 0 and "ran 3" not in r.stdout, (target, security, r.stdout)
        with connect(address) as client:
            assert client.submit(os.getpid).result() != os.getpid()
