//! The world's devices, and what provisioning them keeps beside them:
//! which will fail, and how many were made. Written only in this folder.

use std::ops::Deref;

use super::failures::{FailProvisioning, FailurePlan};
use super::record::Kept;
use crate::model::journal::Table;

/// The devices by ID (read as a [`Table`]), with their provisioning's
/// own state.
#[derive(Debug, Default)]
pub(crate) struct Devices {
    pub(super) rows: Table<Kept>,
    /// Which devices fail to provision (none until the fake sets its
    /// plan).
    pub(super) failures: FailurePlan,
    /// Devices ever created through the API (not by a competitor).
    pub(super) created: u64,
    /// Devices a competitor placed.
    pub(super) competitors: u64,
}

impl Deref for Devices {
    type Target = Table<Kept>;
    fn deref(&self) -> &Self::Target {
        &self.rows
    }
}

impl Devices {
    /// Devices ever created through the API.
    pub(crate) fn created(&self) -> u64 {
        self.created
    }

    /// Devices a competitor placed.
    pub(crate) fn competitors(&self) -> u64 {
        self.competitors
    }

    /// Replaces which devices fail to provision.
    pub(crate) fn set_failures(&mut self, plan: FailurePlan) {
        self.failures = plan;
    }

    /// Takes which devices fail to provision (none are left).
    pub(crate) fn take_failures(&mut self) -> FailurePlan {
        std::mem::take(&mut self.failures)
    }

    /// One device more fails to provision.
    pub(crate) fn fail_provisioning(&mut self, fail: FailProvisioning) {
        self.failures.push(fail);
    }
}
