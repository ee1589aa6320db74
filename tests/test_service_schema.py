"""schemathesis against ``/openapi.json`` of a real ``tawla serve``: no 5xx, and every answer
(status, content type, body) conforms to the schema. Bounded: a few examples per operation,
derandomized."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")
schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from schemathesis.checks import (content_type_conformance, not_a_server_error,  # noqa: E402
                                 response_schema_conformance, status_code_conformance)

from service_helpers import Server  # noqa: E402

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("schema")
    s = Server(f"sqlite:///{d / 'schema.db'}", cwd=str(d)).start()
    yield s
    s.stop()


def _seated_room(url: str) -> tuple[str, dict]:
    """A playing room (backgammon, two players) and the headers of its seat 0."""
    host = httpx.post(url + "/v1/rooms", json={"ruleset": "backgammon", "length": 3}).json()
    httpx.post(url + f"/v1/rooms/{host['code']}/join", json={})
    return host["code"], {"Authorization": f"Bearer {host['token']}"}


def test_api_conforms_to_its_schema(server):
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    operations = [r.ok() for r in schema.get_all_operations()]
    assert len(operations) >= 12
    statuses: list[int] = []
    code, headers = _seated_room(server.url)
    for op in operations:
        @given(case=op.as_strategy())
        @settings(max_examples=12, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case):
            statuses.append(case.call_and_validate(checks=CHECKS).status_code)
            if "code" in (case.path_parameters or {}):  # the same, in a real room with a seat's token
                case.path_parameters["code"] = code
                statuses.append(case.call_and_validate(headers=headers, checks=CHECKS).status_code)

        check()
    assert len(statuses) >= 5 * len(operations) and any(200 <= s < 300 for s in statuses)
    assert any(s in (400, 401, 422) for s in statuses) and 409 in statuses
