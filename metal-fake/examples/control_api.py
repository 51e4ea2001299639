#!/usr/bin/env python3
"""Drives metal-fake's control API and the Equinix Python SDK (metalv1),
through the `metal_fake` package the wheel carries.

    pip install target/wheels/metal_fake-*.whl equinix==0.19.0
    python3 control_api.py

`MetalFake()` starts the binary the wheel installed (or $METAL_FAKE's) on a
free port and stops it at the end. The script seeds two projects of two
organisations, injects a lost reply on createDevice, creates a device
through the SDK (which sees the connection drop), then checks through
/_fake/calls that the call was made once and the fault injected, that the device exists all the same, that the other
organisation's token gets 403 on the first project, and that advancing the
fake's clock makes the device active without waiting. Exits non-zero on the
first check that fails.
"""

import sys

from equinix.services import metalv1

from metal_fake import MetalFake

ORG_A = "0a000000-0000-4000-8000-00000000000a"
ORG_B = "0a000000-0000-4000-8000-00000000000b"
PROJECT_A = "0b000000-0000-4000-8000-00000000000a"
PROJECT_B = "0b000000-0000-4000-8000-00000000000b"
RESERVATION_A = "0c000000-0000-4000-8000-00000000000a"
RESERVATION_B = "0c000000-0000-4000-8000-00000000000b"


def sdk(fake, token):
    config = metalv1.Configuration(host=fake.url)
    config.api_key["x_auth_token"] = token
    return metalv1.ApiClient(config)


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")
    print(f"ok: {what}")


def main():
    with MetalFake(rate_limit=0) as fake:
        run(fake)
    print("control_api.py: all checks passed")


def run(fake):
    world = {
        "organizations": [{"id": ORG_A, "name": "a"}, {"id": ORG_B, "name": "b"}],
        "projects": [
            {"id": PROJECT_A, "name": "project a", "organization": ORG_A},
            {"id": PROJECT_B, "name": "project b", "organization": ORG_B},
        ],
        "tokens": [{"token": "token-b", "organizations": [ORG_B]}],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "plans": [{"slug": "c3.small.x86"}],
        "reservations": [
            {"id": RESERVATION_A, "project": PROJECT_A, "plan": "c3.small.x86", "facility": "da11"},
            {"id": RESERVATION_B, "project": PROJECT_B, "plan": "c3.small.x86", "facility": "da11"},
        ],
    }
    summary = fake.load_world(world)
    check(summary.projects == 2, "the world has two projects")

    fake.fault("createDevice", "drop_after")

    with sdk(fake, fake.token) as client:
        devices = metalv1.DevicesApi(client)
        request = metalv1.CreateDeviceRequest(
            metalv1.DeviceCreateInMetroInput.from_dict({
                "metro": "da",
                "plan": "c3.small.x86",
                "operating_system": "ubuntu_22_04",
                "hostname": "python-1",
                "hardware_reservation_id": RESERVATION_A,
            })
        )
        try:
            devices.create_device(PROJECT_A, request)
            lost = False
        except Exception as e:  # the SDK surfaces the dropped connection
            print(f"createDevice failed as injected: {type(e).__name__}")
            lost = True
        check(lost, "the SDK saw no reply to createDevice")

        calls = fake.calls("createDevice")
        check(calls.total == 1, "createDevice was called once")
        call = calls.calls[0]
        check(call.fault == "drop_after" and call.status is None,
              "the fake recorded the lost reply (fault drop_after, no status)")

        listed = devices.find_project_devices(PROJECT_A).devices
        check([d.hostname for d in listed] == ["python-1"],
              "the device exists although its reply was lost")
        # An empty list may come without its key (None in the SDK).
        check(not devices.find_project_devices(PROJECT_B).devices,
              "the other project has no device")
        device = listed[0]
        check(device.state in ("queued", "provisioning"), "the device is provisioning")

        fake.advance(3600)
        again = devices.find_device_by_id(str(device.id))
        check(again.state == "active", "an hour later on the fake's clock it is active")

    with sdk(fake, "token-b") as client:
        try:
            metalv1.ProjectsApi(client).find_project_by_id(PROJECT_A)
            status = 200
        except metalv1.ApiException as e:
            status = e.status
        check(status == 403, "organisation b's token gets 403 on project a")


if __name__ == "__main__":
    main()
