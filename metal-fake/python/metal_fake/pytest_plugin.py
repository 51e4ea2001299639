"""The pytest plugin of metal_fake (the `pytest11` entry point
`metal_fake`): two fixtures and a marker.

- `metal_fake`: a fresh `MetalFake` for each test, stopped after it. Its
  options are `@pytest.mark.metal_fake(reservations=3, ...)`'s keyword
  arguments over the `metal_fake_options` fixture's dict (empty unless a
  conftest overrides it).
- `metal_fake_session`: one `MetalFake` for the whole session, with the
  options of the `metal_fake_session_options` fixture (a session-scoped
  dict, empty unless overridden); call its `reset()` where a test needs the
  seeded world back.

A fake that does not start fails the test with the binary's stderr.
"""

import pytest

from metal_fake import MetalFake


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "metal_fake(**options): the options of the test's metal_fake fixture "
        "(MetalFake's keyword arguments)",
    )


@pytest.fixture
def metal_fake_options():
    """The options of every test's `metal_fake` fixture (override it)."""
    return {}


@pytest.fixture(scope="session")
def metal_fake_session_options():
    """The options of the `metal_fake_session` fixture (override it)."""
    return {}


@pytest.fixture
def metal_fake(request, metal_fake_options):
    """A fresh metal-fake for this test, stopped after it."""
    options = dict(metal_fake_options)
    for marker in reversed(list(request.node.iter_markers("metal_fake"))):
        options.update(marker.kwargs)
    with MetalFake(**options) as fake:
        yield fake


@pytest.fixture(scope="session")
def metal_fake_session(metal_fake_session_options):
    """One metal-fake for the session, stopped at its end."""
    with MetalFake(**metal_fake_session_options) as fake:
        yield fake
