


def resumable(main):
    """Run a command's ``main``; Ctrl-C says in one line that the finished runs are kept and the
    same command resumes, and exits with status 130 (no traceback)."""
    import sys

    try:
        return main()
    except KeyboardInterrupt:
        print("\ninterrupted: every finished run is in the store and an unfinished one at its "
              "last checkpoint; the same command resumes", file=sys.stderr)
        raise SystemExit(130)
