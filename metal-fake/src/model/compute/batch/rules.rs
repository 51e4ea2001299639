//! The rules of device batches: each entry's devices made through the
//! device create path, what could not be made, and the delete.

use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Batch, DeviceBatchState, Kept};
use crate::call::ApiError;
use crate::model::bounds::room_for;
use crate::model::device::read_create_body;
use crate::model::relations::Kind;
use crate::model::World;

/// The most devices one batch asks for.
pub(crate) const MAX_BATCH_DEVICES: u32 = 100;

/// The most entries one `createDeviceBatch` holds.
pub(crate) const MAX_BATCHES: usize = 100;

/// One entry of a `createDeviceBatch` body, read: how many devices, their
/// hostnames, and the `createDevice` body each is made from.
pub(crate) struct Entry {
    quantity: u32,
    hostnames: Vec<String>,
    body: Value,
}

/// Reads a `createDeviceBatch` body: `batches`, a list of 1 to
/// [`MAX_BATCHES`] entries, each a `createDevice` body with `quantity`
/// (default: as many as `hostnames`, else 1) and `hostnames`; `422` for
/// anything else, before anything is made.
pub(crate) fn read(body: Value) -> Result<Vec<Entry>, ApiError> {
    let Some(Value::Array(entries)) = body.get("batches").cloned() else {
        return Err(ApiError::unprocessable("batches is required"));
    };
    if entries.is_empty() || entries.len() > MAX_BATCHES {
        return Err(ApiError::unprocessable(format!(
            "batches must hold 1 to {MAX_BATCHES} entries"
        )));
    }
    let mut read = Vec::with_capacity(entries.len());
    for (i, entry) in entries.into_iter().enumerate() {
        let Value::Object(mut fields) = entry else {
            return Err(ApiError::unprocessable(format!(
                "batches[{i}] is not an object"
            )));
        };
        let hostnames: Vec<String> = match fields.remove("hostnames") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => serde_json::from_value(v).map_err(|_| {
                ApiError::unprocessable(format!("batches[{i}].hostnames is not a list of strings"))
            })?,
        };
        let quantity = match fields.remove("quantity") {
            None | Some(Value::Null) => (hostnames.len() as u64).max(1),
            Some(v) => v.as_u64().ok_or_else(|| {
                ApiError::unprocessable(format!("batches[{i}].quantity is not a whole number"))
            })?,
        };
        if quantity == 0 || quantity > u64::from(MAX_BATCH_DEVICES) {
            return Err(ApiError::unprocessable(format!(
                "batches[{i}].quantity must be 1 to {MAX_BATCH_DEVICES}"
            )));
        }
        if hostnames.len() as u64 > quantity {
            return Err(ApiError::unprocessable(format!(
                "batches[{i}] has more hostnames than its quantity"
            )));
        }
        let body = Value::Object(fields);
        // Malformed bodies are refused here, before any batch is made.
        read_create_body(body.clone())?;
        read.push(Entry {
            quantity: quantity as u32,
            hostnames,
            body,
        });
    }
    Ok(read)
}

impl World {
    /// The devices `b` made that the world still has.
    pub(crate) fn batch_devices<'a>(&'a self, b: &'a Kept) -> impl Iterator<Item = Uuid> + 'a {
        b.rec
            .devices
            .iter()
            .copied()
            .filter(|d| self.devices.contains_key(d))
    }

    /// `createDeviceBatch`: a batch for each entry, each making its
    /// devices one by one through `createDevice` (the `i`th named
    /// `hostnames[i]` when given); a device that cannot be made leaves
    /// its batch `failed`, with the refusal among its `error_messages`,
    /// and the devices made stay. The batches' IDs, in order.
    pub(crate) fn create_batches(
        &mut self,
        project: Uuid,
        entries: &[Entry],
        now: Instant,
    ) -> Result<Vec<Uuid>, ApiError> {
        if !self.projects.contains_key(&project) {
            return Err(ApiError::not_found());
        }
        room_for(
            "Batches",
            self.batches.len() + entries.len().saturating_sub(1),
        )?;
        let mut ids = Vec::with_capacity(entries.len());
        for entry in entries {
            let mut devices = Vec::new();
            let mut errors: Vec<String> = Vec::new();
            for i in 0..entry.quantity as usize {
                let mut body = entry.body.clone();
                if let (Some(name), Value::Object(fields)) = (entry.hostnames.get(i), &mut body) {
                    fields.insert("hostname".into(), Value::String(name.clone()));
                }
                let made =
                    read_create_body(body).and_then(|b| self.create_device(project, &b, now));
                match made {
                    Ok(d) => devices.push(d),
                    Err(e) => {
                        for m in e.messages {
                            if !errors.contains(&m) {
                                errors.push(m);
                            }
                        }
                    }
                }
            }
            let id = Uuid::new_v4();
            let rec = Batch {
                id,
                project,
                quantity: entry.quantity,
                state: if errors.is_empty() {
                    DeviceBatchState::Completed
                } else {
                    DeviceBatchState::Failed
                },
                error_messages: errors,
                devices,
            };
            self.batches
                .rows()
                .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
            ids.push(id);
        }
        Ok(ids)
    }

    /// `deleteBatch`: the batch goes; with `remove_associated_instances`
    /// its devices still there are deleted too (one still provisioning is
    /// gone at once; a locked one refuses the whole delete).
    pub(crate) fn delete_batch(
        &mut self,
        id: Uuid,
        remove_devices: bool,
        now: Instant,
    ) -> Result<(), ApiError> {
        let b = self.batches.get(&id).ok_or_else(ApiError::not_found)?;
        let devices: Vec<Uuid> = self.batch_devices(b).collect();
        if remove_devices {
            for d in &devices {
                self.check_device_access(*d)?;
                if self.devices.get(d).is_some_and(|k| k.rec.locked) {
                    return Err(ApiError::unprocessable(
                        "Cannot delete a locked device: unlock it first",
                    ));
                }
            }
            for d in devices {
                if self.delete_device(d, now).is_err() {
                    self.remove_record(Kind::Device, d, now);
                }
            }
        }
        self.delete_record(Kind::Batch, id, now)
    }

    /// Removes one batch (for a delete or a cascade), journaled.
    pub(crate) fn remove_batch(&mut self, id: Uuid, at: Instant) {
        self.batches.rows().remove(&mut self.journal, id, at);
    }
}
