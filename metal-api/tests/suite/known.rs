//! The known device states, which keep the text of an unknown one, and
//! `csv`.

use metal_api::{csv, DeviceState};

#[test]
fn every_known_state_round_trips() {
    for text in [
        "queued",
        "provisioning",
        "deprovisioning",
        "reinstalling",
        "active",
        "inactive",
        "failed",
        "powering_on",
        "powering_off",
        "deleted",
    ] {
        let state = DeviceState::parse(text);
        assert!(!matches!(state, DeviceState::Other(_)), "{text}");
        assert_eq!(state.as_str(), text);
    }
}

#[test]
fn device_with_unknown_state_decodes_and_keeps_text() {
    let device: metal_api::types::Device = serde_json::from_str(
        r#"{"id":"0b5d4c5e-1c7b-4d1c-9a38-2d1c3c1e7f10","state":"hibernating"}"#,
    )
    .unwrap();
    assert_eq!(
        device.state_kind(),
        Some(DeviceState::Other("hibernating".into()))
    );
}

#[test]
fn csv_handles_empty_and_single() {
    assert_eq!(csv(Vec::<&str>::new()), "");
    assert_eq!(csv(["project"]), "project");
}
