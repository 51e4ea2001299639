//! metal-fake's integration tests, one binary (one build and one link for
//! all of them); each file is one concern, as its own doc says. Tests that
//! must be a process of their own, or need a feature or a tool, are files
//! of their own beside this folder.

#[cfg(feature = "cli")]
#[allow(dead_code)] // the binary's helpers; the suite runs only some
#[path = "../binary/mod.rs"]
mod binary;
#[path = "../common/mod.rs"]
mod common;
#[path = "../http/mod.rs"]
mod http;

mod accounts;
mod adding_an_operation;
mod api_keys;
mod auth;
mod batches;
mod bgp_sessions;
mod catalog;
mod census;
mod census_fields;
mod circuit_variants;
mod clients_rely_on;
mod clock;
mod complete_replies;
mod conformance;
mod conformance_lists;
mod console;
mod control;
mod control_schema;
mod cross_org;
mod default_catalog;
mod deletes;
mod device_reads;
mod device_variants;
mod events;
mod every_choice_has_a_row;
mod evidence_decides;
mod example_world;
mod fault_classes;
mod include;
mod input_forms;
mod interconnections;
mod ip_availability;
mod ip_reservations;
mod layer2;
mod legacy_routes;
mod licenses;
mod lifecycle;
mod metal_gateways;
mod model;
mod network;
mod next_available;
mod no_501;
mod on_demand;
mod packngo_suite;
mod port_vlan_batches;
mod ports;
mod query_lists;
mod record_bounds;
mod relations;
mod replies_both_ways;
mod router;
mod self_service_reservations;
mod server;
mod server_bounds;
mod spot_market;
mod ssh_key_race;
mod state_file;
mod via;
mod virtual_networks;
mod vrfs;
mod walk;
mod whole_replies;
mod world_document;
