//! One attempt of one operation: the seam between the policy and the wire.
//!
//! The policy client ([`crate::Client`]) never touches HTTP itself: it sends
//! [`Request`]s through a [`Transport`], which makes exactly one exchange and
//! classifies any failure as an [`AttemptError`]. The real transport is
//! [`crate::HttpTransport`] (the generated `metal-api` client); `metal-fake`
//! provides an in-process one, so the same policy runs against both.

use async_trait::async_trait;
use metal_api::types;
use uuid::Uuid;

use crate::error::AttemptError;

/// Who owns an SSH key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyOwner {
    /// The current user (`/ssh-keys`).
    User,
    /// A project (`/projects/{id}/ssh-keys`).
    Project(Uuid),
}

/// One API request, as the policy describes it to a transport.
// `CreateDevice` is large, but requests are made once per attempt and
// moved, never stored in bulk; boxing would change the agreed shape.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Request {
    /// `findProjectById`.
    GetProject {
        /// The project.
        id: Uuid,
    },
    /// `findDeviceById`.
    GetDevice {
        /// The device.
        id: Uuid,
        /// Comma-joined `include`, if any.
        include: Option<String>,
        /// Comma-joined `exclude`, if any.
        exclude: Option<String>,
    },
    /// `findProjectDevices`: one page.
    ListDevices {
        /// The project.
        project: Uuid,
        /// 1-based page number.
        page: u32,
        /// Entries per page.
        per_page: u32,
        /// Comma-joined `include`, if any.
        include: Option<String>,
    },
    /// `createDevice`.
    CreateDevice {
        /// The project to create in.
        project: Uuid,
        /// The body, sent as is.
        body: types::CreateDeviceRequest,
    },
    /// `updateDevice`.
    UpdateDevice {
        /// The device.
        id: Uuid,
        /// The body.
        body: types::DeviceUpdateInput,
    },
    /// `performAction`.
    DeviceAction {
        /// The device.
        id: Uuid,
        /// What to do.
        action: types::DeviceActionInputType,
    },
    /// `deleteDevice`.
    DeleteDevice {
        /// The device.
        id: Uuid,
        /// `force_delete`.
        force: bool,
    },
    /// `findProjectHardwareReservations`: one page.
    ListReservations {
        /// The project.
        project: Uuid,
        /// 1-based page number.
        page: u32,
        /// Entries per page.
        per_page: u32,
        /// Comma-joined `include`, if any.
        include: Option<String>,
    },
    /// `findHardwareReservationById`.
    GetReservation {
        /// The reservation.
        id: Uuid,
        /// Comma-joined `include`, if any.
        include: Option<String>,
    },
    /// `moveHardwareReservation`.
    MoveReservation {
        /// The reservation.
        id: Uuid,
        /// The project to move it to.
        project: Uuid,
    },
    /// `findSSHKeys` or `findProjectSSHKeys`.
    ListSshKeys {
        /// Whose keys.
        owner: KeyOwner,
    },
    /// `findSSHKeyById`.
    GetSshKey {
        /// The key.
        id: Uuid,
    },
    /// `createSSHKey` or `createProjectSSHKey`.
    CreateSshKey {
        /// Whose key it will be.
        owner: KeyOwner,
        /// The body.
        body: types::SshKeyCreateInput,
    },
    /// `updateSSHKey`.
    UpdateSshKey {
        /// The key.
        id: Uuid,
        /// The body.
        body: types::SshKeyInput,
    },
    /// `deleteSSHKey`.
    DeleteSshKey {
        /// The key.
        id: Uuid,
    },
}

impl Request {
    /// The spec's operationId: the `endpoint` label of every metric, and
    /// the operation named in errors. Never "unknown".
    pub fn operation(&self) -> &'static str {
        match self {
            Self::GetProject { .. } => "findProjectById",
            Self::GetDevice { .. } => "findDeviceById",
            Self::ListDevices { .. } => "findProjectDevices",
            Self::CreateDevice { .. } => "createDevice",
            Self::UpdateDevice { .. } => "updateDevice",
            Self::DeviceAction { .. } => "performAction",
            Self::DeleteDevice { .. } => "deleteDevice",
            Self::ListReservations { .. } => "findProjectHardwareReservations",
            Self::GetReservation { .. } => "findHardwareReservationById",
            Self::MoveReservation { .. } => "moveHardwareReservation",
            Self::ListSshKeys {
                owner: KeyOwner::User,
            } => "findSSHKeys",
            Self::ListSshKeys {
                owner: KeyOwner::Project(_),
            } => "findProjectSSHKeys",
            Self::GetSshKey { .. } => "findSSHKeyById",
            Self::CreateSshKey {
                owner: KeyOwner::User,
                ..
            } => "createSSHKey",
            Self::CreateSshKey {
                owner: KeyOwner::Project(_),
                ..
            } => "createProjectSSHKey",
            Self::UpdateSshKey { .. } => "updateSSHKey",
            Self::DeleteSshKey { .. } => "deleteSSHKey",
        }
    }

    /// The success status the spec documents for this operation (the
    /// `status_code` label of a successful request's latency).
    pub fn success_status(&self) -> u16 {
        match self {
            Self::CreateDevice { .. }
            | Self::MoveReservation { .. }
            | Self::CreateSshKey { .. } => 201,
            Self::DeviceAction { .. } => 202,
            Self::DeleteDevice { .. } | Self::DeleteSshKey { .. } => 204,
            _ => 200,
        }
    }
}

/// A successful reply, one variant per response shape.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Response {
    /// A project.
    Project(Box<types::Project>),
    /// A device.
    Device(Box<types::Device>),
    /// One page of devices, with its `meta`.
    Devices(types::DeviceList),
    /// A hardware reservation.
    Reservation(Box<types::HardwareReservation>),
    /// One page of hardware reservations, with its `meta`.
    Reservations(types::HardwareReservationList),
    /// An SSH key.
    SshKey(Box<types::SshKey>),
    /// A list of SSH keys.
    SshKeys(types::SshKeyList),
    /// No body (204 No Content, 202 Accepted).
    Empty,
}

/// Makes one exchange for one request; never retries, never waits for a
/// limit. Implementations classify failures into [`AttemptError`] by what
/// the server may have done.
#[async_trait]
pub trait Transport: Send + Sync {
    /// Sends `request` once.
    async fn send(&self, request: Request) -> Result<Response, AttemptError>;
}
