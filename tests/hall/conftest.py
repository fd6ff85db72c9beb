"""The hall's tests run a real Mosquitto (the Debian package, which `make test` installs):
one broker per test on a free loopback port, with its own configuration, stopped after.
Without mosquitto they skip, except with DAMAS_REQUIRE_MOSQUITTO=1 (CI), where they fail."""

import os

import pytest

from damas.hall.mosquitto import Mosquitto, MosquittoMissing


@pytest.fixture
def mosquitto():
    try:
        broker = Mosquitto()
    except MosquittoMissing as e:
        if os.environ.get("DAMAS_REQUIRE_MOSQUITTO") == "1":
            pytest.fail(f"{e} [DAMAS_REQUIRE_MOSQUITTO=1]", pytrace=False)
        pytest.skip(str(e))
    broker.start()
    yield broker
    broker.close()
