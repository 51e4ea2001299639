//! Interconnections: dedicated Fabric ports of an organisation, and
//! shared connections of a project (a Fabric service token per port),
//! each with one port (`primary`) or two (`redundant`), in a metro that
//! supports them; their virtual circuits are `model/network/virtual_circuit`.
//!
//! - `record`: [`Interconnection`], what the world keeps and its document
//!   entry.
//! - `speed`: the speeds a connection takes, as clients send them.
//! - `rules`: a create (type, redundancy, speed, metro, mode, service
//!   tokens, VLANs), an update, a delete, and the timed activation.
//! - `view`: a connection and its ports as the API sends them.
//! - `catalog`: the metros with interconnections, and their prices.
//! - `operations`: the operations modelled, who owns a connection, and
//!   how connections (and the metros with them) load and save.
//! - `service_token`: a Fabric service token by its ID, a path outside
//!   the 2024 spec that packngo used.

mod catalog;
mod operations;
mod record;
mod rules;
mod service_token;
mod speed;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{
    FabricProvider, Interconnection, InterconnectionMode, InterconnectionStatus,
    InterconnectionType, Redundancy, TokenSide,
};
pub(crate) use rules::CircuitsOn;
pub(crate) use speed::parse_speed;

use uuid::Uuid;

use crate::model::render::API_PREFIX;

/// The collection of connections' paths and hrefs.
pub(crate) const COLLECTION: &str = "connections";

/// The href of port `port` of connection `connection`.
pub(crate) fn port_href(connection: Uuid, port: Uuid) -> String {
    format!("{API_PREFIX}/{COLLECTION}/{connection}/ports/{port}")
}

crate::model::journal::owned_table! {
    /// The world's interconnections, by ID: written only here.
    Interconnections of Kept
}
