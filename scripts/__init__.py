"""The maintainers' tools, none of them a reader's command (those are ``python -m anchorkit
<verb>``, in ``anchorkit/commands/``): the book's vendored assets, the Colab cell, the repository's
URL, the seed's trip."""
