"""integration_test: one test of the real daemons, as every test in tests/integration is."""

_ALWAYS = [
    "//tests/harness:local_cluster",
    "//tests/harness:shared_cluster",
    "//third_party:absl",
    "//third_party:gtest_main",
]

def integration_test(name, size = "large", srcs = [], deps = [], tags = [], **kwargs):
    """A cc_test NAME built from NAME.cc (and `srcs`), tagged "integration" (and `tags`).

    It links the harness that starts the daemons (LocalCluster, and the
    fixture of a suite that shares one: SharedClusterTest), abseil and
    GoogleTest's main, besides `deps`; other arguments go to cc_test as given.
    """
    native.cc_test(
        name = name,
        size = size,
        srcs = [name + ".cc"] + [s for s in srcs if s != name + ".cc"],
        tags = ["integration"] + [t for t in tags if t != "integration"],
        deps = _ALWAYS + [d for d in deps if d not in _ALWAYS],
        **kwargs
    )
