"""The metal_fake package and its pytest fixtures, with the Equinix Python
SDK (`equinix` 0.19.0, metalv1) as the client under test.

CI runs this file from the installed wheel (`.ci/run`'s wheel step:
`pytest metal-fake/python/tests`, the plugin found through its entry
point); `cargo test -p metal-fake --features cli --test python_harness --
--ignored` runs it against the workspace's binary and sources.
"""

import dataclasses
import subprocess

import pytest
from equinix.services import metalv1

import metal_fake
from metal_fake import MetalFake, MetalFakeError, MetalFakeStartError

PLAN = "c3.small.x86"


def sdk(fake, token=None):
    config = metalv1.Configuration(host=fake.url)
    config.api_key["x_auth_token"] = token or fake.token
    return metalv1.ApiClient(config)


def create_on_free_reservation(devices, fake, hostname):
    reservations = metalv1.HardwareReservationsApi(devices.api_client)
    free = [
        r
        for r in reservations.find_project_hardware_reservations(fake.project).hardware_reservations
        if r.provisionable and r.device is None
    ]
    assert free, "the project has a free reservation"
    request = metalv1.CreateDeviceRequest(
        metalv1.DeviceCreateInMetroInput.from_dict(
            {
                "metro": "da",
                "plan": PLAN,
                "operating_system": "ubuntu_24_04",
                "hostname": hostname,
                "hardware_reservation_id": str(free[0].id),
            }
        )
    )
    return devices.create_device(fake.project, request)


def test_the_fixture_serves_the_sdk_and_the_clock_provisions(metal_fake):
    assert metal_fake.url.endswith("/metal/v1")
    with sdk(metal_fake) as client:
        devices = metalv1.DevicesApi(client)
        device = create_on_free_reservation(devices, metal_fake, "fixture-1")
        assert device.state in ("queued", "provisioning")
        clock = metal_fake.advance(3600)
        assert clock.advanced_seconds == 3600
        assert devices.find_device_by_id(str(device.id)).state == "active"
    calls = metal_fake.calls("createDevice")
    assert calls.total == 1
    assert [c.status for c in calls] == [201]
    assert metal_fake.state()["devices_created"] == 1


def test_a_lost_reply_is_recorded_and_the_device_exists(metal_fake):
    metal_fake.fault("createDevice", "drop_after")
    with sdk(metal_fake) as client:
        devices = metalv1.DevicesApi(client)
        with pytest.raises(Exception):
            create_on_free_reservation(devices, metal_fake, "lost-1")
        (call,) = metal_fake.calls("createDevice", limit=10).calls
        assert (call.fault, call.status) == ("drop_after", None)
        listed = devices.find_project_devices(metal_fake.project).devices
        assert [d.hostname for d in listed] == ["lost-1"]


def test_a_failing_status_then_a_success(metal_fake):
    metal_fake.fault("findProjectById", "fail_before", status=503, times=1)
    with sdk(metal_fake) as client:
        projects = metalv1.ProjectsApi(client)
        with pytest.raises(metalv1.ApiException) as refused:
            projects.find_project_by_id(metal_fake.project)
        assert refused.value.status == 503
        assert str(projects.find_project_by_id(metal_fake.project).id) == metal_fake.project
    assert [c.status for c in metal_fake.calls("findProjectById")] == [503, 200]


@pytest.mark.metal_fake(reservations=3, time_scale=10)
def test_the_marker_gives_the_fixture_its_options(metal_fake):
    with sdk(metal_fake) as client:
        listed = metalv1.HardwareReservationsApi(client).find_project_hardware_reservations(
            metal_fake.project
        )
        assert len(listed.hardware_reservations) == 3
    assert metal_fake.clock().time_scale == 10


def test_the_session_fixture_is_one_fake(metal_fake_session, request):
    again = request.getfixturevalue("metal_fake_session")
    assert again is metal_fake_session
    summary = metal_fake_session.reset()
    assert summary.main_project == metal_fake_session.project
    assert metal_fake_session.calls().total == 0


def test_a_call_is_logged_with_its_request_and_error_and_never_its_token():
    missing = "0d000000-0000-4000-8000-00000000dead"
    with MetalFake(token="secret-token-for-the-log", log_calls=True) as fake:
        with sdk(fake) as client:
            with pytest.raises(metalv1.ApiException) as refused:
                metalv1.DevicesApi(client).find_device_by_id(missing, include=["project"])
            assert refused.value.status == 404
        (call,) = fake.calls("findDeviceById").calls
        assert (call.method, call.path) == ("GET", f"/metal/v1/devices/{missing}")
        assert call.query == "include=project"
        assert (call.status, call.error) == (404, "Not found")
        line = f"GET /metal/v1/devices/{missing}?include=project findDeviceById 404: Not found"
        assert line in fake.stderr()
        assert "secret-token-for-the-log" not in fake.stderr()
        assert "secret-token-for-the-log" not in repr(fake.calls())


def test_refusals_raise_with_the_fakes_message(metal_fake):
    with pytest.raises(MetalFakeError) as refused:
        metal_fake.fault("createDevise", "hang")
    assert refused.value.status == 422
    assert "is not an operationId of the spec" in str(refused.value)
    with pytest.raises(MetalFakeError) as refused:
        metal_fake.advance(-1)
    assert refused.value.status == 422
    with pytest.raises(MetalFakeError, match="limit must be from 1"):
        metal_fake.calls(limit=0)
    with pytest.raises(MetalFakeError) as refused:
        metal_fake.random_faults(1.5)
    assert "not a probability" in refused.value.errors[0]


def test_random_faults_fault_and_clear(metal_fake):
    assert metal_fake.random_faults(1.0, seed=3, kinds=["bad_gateway"]) == {"added": 0, "random": True}
    with sdk(metal_fake) as client:
        with pytest.raises(metalv1.ApiException) as refused:
            metalv1.ProjectsApi(client).find_project_by_id(metal_fake.project)
        assert refused.value.status == 502
        metal_fake.clear_faults()
        metalv1.ProjectsApi(client).find_project_by_id(metal_fake.project)
    assert [c.fault for c in metal_fake.calls()] == ["bad_gateway", None]


def test_a_world_saved_and_loaded(metal_fake):
    world = metal_fake.world()
    world["projects"].append({"id": "0b000000-0000-4000-8000-0000000000aa", "name": "second"})
    summary = metal_fake.load_world(world)
    assert summary.projects == 2
    assert summary.main_project == metal_fake.project


def test_the_control_token_guards_the_control_api():
    with MetalFake(control_token="guard") as fake:
        assert fake.reset().projects == 1
        fake.control_token = "wrong"
        with pytest.raises(MetalFakeError) as refused:
            fake.state()
        assert refused.value.status == 401
        assert refused.value.errors == ["Invalid control token"]


def test_a_fake_that_does_not_start_raises_with_its_stderr():
    with pytest.raises(MetalFakeStartError) as failed:
        MetalFake(time_scale=0.5).start()
    assert "not a time scale from 1 to 10000" in str(failed.value)
    assert "exited with code 2" in str(failed.value)


def test_every_flag_the_harness_passes_is_one_of_the_binarys(tmp_path):
    """Every option set at once: a renamed flag makes the binary refuse
    to start (clap's exit code 2), and `--help` must name each flag."""
    help_text = subprocess.run(
        [metal_fake.binary(), "--help"], capture_output=True, text=True, check=True
    ).stdout
    for flag in metal_fake.FLAGS.values():
        assert flag in help_text, f"metal-fake --help does not name {flag}"
    world = {"projects": [{"id": "0b000000-0000-4000-8000-0000000000bb"}]}
    with MetalFake(world=world, time_scale=2, rate_limit=0, fault_rate=0.0, seed=7, fail_rate=0.0,
                   fail_hostname=["doomed"], provision_seconds=1, power_seconds=1,
                   release_seconds=1, deprovision_seconds=0, control_token="c",
                   state_file=str(tmp_path / "state.json"), log_calls=True) as fake:
        assert fake.project == "0b000000-0000-4000-8000-0000000000bb"
    with MetalFake(project="0b000000-0000-4000-8000-0000000000cc", reservations=1) as fake:
        assert fake.project == "0b000000-0000-4000-8000-0000000000cc"
        assert fake.reset().reservations == 1


def test_every_field_the_harness_uses_is_in_the_control_schema():
    """The field names of `WIRE` (what the package sends and reads), the
    fault kinds and the endpoints, against the binary's own schema."""
    schema = metal_fake.control_schema()
    definitions = schema["definitions"]
    for definition, fields in metal_fake.WIRE.items():
        assert definition in definitions, f"the control schema has no {definition}"
        properties = definitions[definition]["properties"]
        for field in fields:
            assert field in properties, f"{definition}.{field} is not in the control schema"
        # Every field the schema requires of a reply is read.
        for field in definitions[definition].get("required", []):
            assert field in fields, f"the harness does not know {definition}.{field}"
    assert set(metal_fake.KINDS) == set(definitions["KindName"]["enum"])
    for endpoint in metal_fake.ENDPOINTS:
        assert endpoint in schema["endpoints"], f"{endpoint} is not in the control schema"
    # The typed replies are the schema's objects, field for field.
    for cls, definition in [(metal_fake.Call, "CallJson"), (metal_fake.Clock, "ClockJson"),
                            (metal_fake.Summary, "Summary"), (metal_fake.Calls, "Calls")]:
        names = {f.name for f in dataclasses.fields(cls)}
        assert names == set(definitions[definition]["properties"]), definition
