"""The ``function`` kind: a typed function (the seed format), called once per test in the
sandbox; returned values compared by declared type on the judge's side (``judge``)."""
